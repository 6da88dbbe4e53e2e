// Package ostest gives tests the Unix facilities they plant or provoke (a
// FIFO where a file is expected, a file-size limit that makes a write fail)
// behind calls that also compile on Windows, where they answer
// errors.ErrUnsupported and the test skips. The test suites compile for
// Windows (make cross); they run on Linux and macOS.
package ostest

import (
	"errors"
	"testing"
)

// Fifo makes a FIFO (mode 0600) at path for t: it skips t where FIFOs do
// not exist and fails it when making one fails.
func Fifo(t testing.TB, path string) {
	t.Helper()
	err := Mkfifo(path, 0o600)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no FIFOs on this OS")
	}
	if err != nil {
		t.Fatal(err)
	}
}

//go:build unix

package everything

import (
	"os"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive flock on path, waiting for it; the returned
// function releases it.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

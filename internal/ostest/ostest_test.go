package ostest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestMkfifo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	err := Mkfifo(p, 0o600)
	if runtime.GOOS == "windows" {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("Mkfifo = %v; want errors.ErrUnsupported", err)
		}
		return
	}
	fi, serr := os.Lstat(p)
	if err != nil || serr != nil || fi.Mode().Type() != fs.ModeNamedPipe {
		t.Fatalf("Mkfifo = %v; Lstat = %v, %v; want a FIFO", err, fi, serr)
	}
}

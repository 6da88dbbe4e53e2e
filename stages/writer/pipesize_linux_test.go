package writer

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestGrowPipe: the output pipe is asked for pipeBytes, and a descriptor
// that is not a pipe is left alone.
func TestGrowPipe(t *testing.T) {
	max, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if err != nil {
		t.Skip("no pipe-max-size")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	growPipe(int(w.Fd()))
	size, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	if size < pipeBytes {
		t.Fatalf("pipe size %d after growPipe; want %d (pipe-max-size %s)", size, pipeBytes, max)
	}
	f, err := os.CreateTemp(t.TempDir(), "not-a-pipe")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	growPipe(int(f.Fd())) // must not fail or panic
}

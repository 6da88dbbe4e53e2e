//go:build linux

package transport

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/magi-code/magi-code/client/clienttest"
)

// openPTY returns the master and slave ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pty slave: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return m, s
}

// TestLaunchTTY: "TTYs ... are not supported transport endpoints": serve
// --stdio with a terminal on fd 0 or fd 1 exits 2 before any side effect.
func TestLaunchTTY(t *testing.T) {
	cases := []struct {
		name          string
		stdin, stdout bool // a TTY on that end
	}{
		{"stdin TTY", true, false},
		{"stdout TTY", false, true},
		{"both TTY", true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, slave := openPTY(t)
			var stdin, stdout *os.File
			if c.stdin {
				stdin = slave
			}
			if c.stdout {
				stdout = slave
			}
			env, check := missingHome(t)
			wantRefused(t, runLaunch(t, []string{"serve", "--stdio"}, stdin, stdout, env))
			check()
		})
	}
}

// TestStalledReaderAtEOF: EOF while output is stalled. With the pipe
// shrunk to one page, fewer frames than the 32 pending ones are stuck, so
// no overflow happens; the closing drain cannot finish. docs/protocol.md, Exit status: "expiration
// before draining/turn completion exits 1" (and each stuck frame is past
// its 2000 ms output deadline), with empty stderr.
func TestStalledReaderAtEOF(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	ch := startRaw(t, ws)
	ch.call(t, "init", "initialize", initParams)
	if _, err := unix.FcntlInt(ch.stdout.Fd(), unix.F_SETPIPE_SZ, os.Getpagesize()); err != nil {
		t.Skipf("F_SETPIPE_SZ: %v", err)
	}
	// About 300 bytes each: 24 frames are more than a page and fewer than
	// the 32 pending frames the writer may hold.
	var b strings.Builder
	for i := 0; i < 24; i++ {
		b.WriteString(reqLine(fmt.Sprintf("s%d", i), "status", "{}"))
	}
	if _, err := io.WriteString(ch.stdin, b.String()); err != nil {
		t.Fatal(err)
	}
	_ = ch.stdin.Close()
	if code := ch.exit(t); code != 1 {
		t.Errorf("exit code %d; want 1", code)
	}
	if ch.stderr.Len() != 0 {
		t.Errorf("stderr %q; want empty", ch.stderr.Bytes())
	}
}

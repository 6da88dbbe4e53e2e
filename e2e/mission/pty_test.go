//go:build unix

package mission

import (
	"os"
	"os/exec"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/magi-code/magi-code/internal/proctest"
)

// startPTY starts cmd on a new cols x rows pseudo-terminal, in a new
// session whose controlling terminal it is, and returns the terminal's
// master. The master is non-blocking, in Go's poller, so that its Close
// ends a Read under way and closes the terminal at once: creack/pty leaves
// it blocking (its ioctls take the descriptor), and then Close waits for
// the Read, which waits for the app to write. A test that ended with the
// app still running (an app that outlived SIGHUP, the disposition ignored)
// hung there, and the app never saw its terminal go.
func startPTY(cmd *exec.Cmd, cols, rows int) (*os.File, error) {
	blocking, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		return nil, err
	}
	defer blocking.Close()
	fd, err := unix.FcntlInt(blocking.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		return nil, err
	}
	return os.NewFile(uintptr(fd), blocking.Name()), nil // NewFile polls a non-blocking descriptor
}

// setSize resizes the terminal of master as a window manager does (the
// kernel signals the app). Through SyscallConn: Fd would put the master
// back in blocking mode.
func setSize(master *os.File, cols, rows int) error {
	sc, err := master.SyscallConn()
	if err != nil {
		return err
	}
	var ioctlErr error
	if err := sc.Control(func(fd uintptr) {
		ioctlErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)})
	}); err != nil {
		return err
	}
	return ioctlErr
}

// endPTY ends what startPTY started, as closing a terminal window does: it
// kills cmd, closes the master (the terminal goes away: what else runs on
// it is hung up), waits for the master's reader to end (done), then for
// every process of the terminal's session, and fails t, killing them, if
// one outlives its terminal.
func endPTY(t *testing.T, cmd *exec.Cmd, master *os.File, done <-chan struct{}) {
	t.Helper()
	_ = cmd.Process.Kill()
	_, _ = cmd.Process.Wait()
	_ = master.Close()
	<-done
	proctest.WaitSessionGone(t, cmd.Process.Pid) // the session leader's pid is the session's id
}

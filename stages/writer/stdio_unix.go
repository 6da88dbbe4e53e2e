//go:build unix

package writer

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// TakeStdio takes the protocol descriptors away from fd 0 and fd 1. It
// duplicates both (close-on-exec, so no subprocess inherits them), points
// fd 0 and fd 1 at /dev/null, sets the duplicates nonblocking and wraps
// them with os.NewFile, so that reads and writes park in the runtime poller
// and SetWriteDeadline works. After it returns, no library print, stray log
// line or subprocess can put a byte on the protocol stream or read protocol
// input: out belongs to the Writer alone.
//
// Call it once, early in serve, after launch validation and after ignoring
// SIGPIPE. On error the process must exit: fd 0 and fd 1 may be in any
// state.
func TakeStdio() (in, out *os.File, err error) {
	inFD, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, nil, fmt.Errorf("writer: dup stdin: %w", err)
	}
	outFD, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		unix.Close(inFD)
		return nil, nil, fmt.Errorf("writer: dup stdout: %w", err)
	}
	fail := func(what string, err error) (*os.File, *os.File, error) {
		unix.Close(inFD)
		unix.Close(outFD)
		return nil, nil, fmt.Errorf("writer: %s: %w", what, err)
	}
	null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail("open /dev/null", err)
	}
	// dupOnto does not copy close-on-exec: fd 0 and fd 1 stay /dev/null for
	// subprocesses, which is what they should inherit.
	if err := dupOnto(null, 0); err != nil {
		unix.Close(null)
		return fail("redirect stdin", err)
	}
	if err := dupOnto(null, 1); err != nil {
		unix.Close(null)
		return fail("redirect stdout", err)
	}
	unix.Close(null)
	// O_NONBLOCK belongs to the open file description, which fd 0 and fd 1
	// no longer share with anything we hand to subprocesses.
	if err := unix.SetNonblock(inFD, true); err != nil {
		return fail("nonblocking stdin", err)
	}
	if err := unix.SetNonblock(outFD, true); err != nil {
		return fail("nonblocking stdout", err)
	}
	// os.NewFile registers a nonblocking descriptor with the poller.
	return os.NewFile(uintptr(inFD), "protocol-stdin"), os.NewFile(uintptr(outFD), "protocol-stdout"), nil
}

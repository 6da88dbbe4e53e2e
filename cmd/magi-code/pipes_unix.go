//go:build unix

package main

import (
	"errors"

	"golang.org/x/sys/unix"
)

// checkPipe reports whether fd is a FIFO. docs/protocol.md, Launch: "TTYs, regular files and
// sockets are not supported transport endpoints"; docs/protocol.md, Launch: only FIFOs
// are (a character device such as /dev/null is refused too).
func checkPipe(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return errors.New("descriptor is not open")
	}
	if st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return errors.New("not a pipe")
	}
	return nil
}

// serveSupported: the stdio transport runs on Unix pipes.
const serveSupported = true

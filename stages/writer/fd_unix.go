//go:build unix

package writer

import (
	"errors"

	"golang.org/x/sys/unix"
)

// writeFD is one nonblocking write(2).
func writeFD(fd uintptr, b []byte) (int, error) {
	n, err := unix.Write(int(fd), b)
	if n < 0 {
		n = 0
	}
	return n, err
}

func isAgain(err error) bool { return errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EWOULDBLOCK) }

func isInterrupted(err error) bool { return errors.Is(err, unix.EINTR) }

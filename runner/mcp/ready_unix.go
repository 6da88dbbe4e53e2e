//go:build unix

package mcp

import (
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// readyLimit bounds what readReady reads: a process left behind holding
// the pipe could otherwise keep it busy for ever. It is larger than any
// pipe's default capacity.
const readyLimit = 1 << 20

// readReady copies what r holds now into w, without waiting for more:
// it stops at the first read that would block, at EOF, or at readyLimit.
func readReady(w io.Writer, r *os.File) {
	if r.SetReadDeadline(time.Time{}) != nil {
		return
	}
	rc, err := r.SyscallConn()
	if err != nil {
		return
	}
	var buf [4096]byte
	_ = rc.Read(func(fd uintptr) bool {
		for total := 0; total < readyLimit; {
			n, err := unix.Read(int(fd), buf[:])
			if n <= 0 || err != nil {
				break
			}
			_, _ = w.Write(buf[:n])
			total += n
		}
		return true // never wait for readiness
	})
}

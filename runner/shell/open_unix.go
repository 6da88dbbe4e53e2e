//go:build unix

package shell

import (
	"os"
	"syscall"
)

// openFlags make opening a configuration file return at once whatever it
// is: open(2) of a FIFO for reading would wait for a writer, and nothing
// could interrupt the check.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

//go:build !unix

package shell

import "os"

// openFlags: no FIFO blocks an open here.
const openFlags = os.O_RDONLY

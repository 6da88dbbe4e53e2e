package tools

import (
	"os"
	"syscall"
)

// changeTime is the inode change time of fi (ctime), which no call sets
// back: utimes sets the modification time (touch -d) but updates ctime to
// now. 0 when fi carries none.
func changeTime(fi os.FileInfo) int64 {
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		return s.Ctimespec.Nano()
	}
	return 0
}

//go:build unix

package config

import (
	"os"
	"syscall"
)

// hardLinked reports whether more than one path names the file.
func hardLinked(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && sys.Nlink > 1
}

package tools

import (
	"os"

	"golang.org/x/sys/unix"
)

// onProcFS reports whether f lives on a procfs mount, wherever it is
// mounted (fstatfs): the process file system shows this process's
// environment and memory.
func onProcFS(f *os.File) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(int(f.Fd()), &st) == nil && st.Type == unix.PROC_SUPER_MAGIC
}

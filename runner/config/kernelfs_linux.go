package config

import (
	"os"

	"golang.org/x/sys/unix"
)

// kernelFS reports whether f lies on a kernel file system whose files are
// views of processes or of the kernel (proc, sysfs, debugfs, tracefs,
// securityfs, cgroup, efivarfs...), wherever it is mounted: such a file is
// never a document. An fstatfs failure counts as one.
func kernelFS(f *os.File) bool {
	var st unix.Statfs_t
	var err error
	rc, cerr := f.SyscallConn() // not f.Fd(), which would make the file blocking
	if cerr != nil {
		return true
	}
	if cerr = rc.Control(func(fd uintptr) { err = unix.Fstatfs(int(fd), &st) }); cerr != nil || err != nil {
		return true
	}
	switch int64(st.Type) {
	case unix.PROC_SUPER_MAGIC, unix.SYSFS_MAGIC, unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC,
		unix.SECURITYFS_MAGIC, unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC, unix.EFIVARFS_MAGIC,
		unix.BPF_FS_MAGIC, unix.PSTOREFS_MAGIC:
		return true
	}
	return false
}

//go:build unix

package subproc

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// KeepFromChildren marks every file descriptor above stderr that this
// process holds close-on-exec: what its own parent left open to it (an
// editor's socket, a pipe of the terminal's job control, a file it had
// open) reaches no subprocess, confined or not. Go opens its own files
// close-on-exec already, and a subprocess still gets what it is given
// explicitly (exec.Cmd's ExtraFiles are duplicated for it). Call it once,
// first thing. It returns how many descriptors it marked.
func KeepFromChildren() int {
	return keepFromChildren(fdDir, closeOnExec)
}

// fdDir lists this process's descriptors: Linux's /proc/self/fd, the
// BSDs' and macOS's /dev/fd.
var fdDir = func() string {
	if _, err := os.Stat("/proc/self/fd"); err == nil {
		return "/proc/self/fd"
	}
	return "/dev/fd"
}()

// closeOnExec sets FD_CLOEXEC on fd; false when fd was already marked or
// is not open.
func closeOnExec(fd int) bool {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC != 0 {
		return false
	}
	_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC)
	return err == nil
}

// keepFromChildren marks each descriptor above 2 listed in dir with mark.
// The listing is read whole before anything is marked: the directory's own
// descriptor is among those listed, and is closed by then.
func keepFromChildren(dir string, mark func(int) bool) int {
	f, err := os.Open(dir)
	if err != nil {
		return 0
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	n := 0
	for _, name := range names {
		if fd, err := strconv.Atoi(name); err == nil && fd > 2 && mark(fd) {
			n++
		}
	}
	return n
}

//go:build linux || darwin

package tools

import (
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Every file tool open is nonblocking: open(2) of a FIFO for reading blocks
// until a writer appears and no ctx can interrupt it, and opening a device
// may wait on hardware. O_NONBLOCK makes the open return at once; the
// caller then checks the opened file's type with fstat before reading or
// writing a byte. O_NONBLOCK changes nothing for regular files and
// directories.
// O_NOCTTY keeps a terminal device from becoming the controlling terminal
// in the instant before the type check closes it.
const baseFlags = unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY

// openDir opens p as a directory without blocking: O_DIRECTORY fails with
// ENOTDIR on anything else (a FIFO, a device, a file) before open(2) could
// wait on it.
func openDir(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|unix.O_DIRECTORY|baseFlags, 0)
}

// openResolved opens real, a clean absolute path that realPath produced (it
// held no symlink when checked), one component at a time with O_NOFOLLOW:
// a symlink swapped into any component after the check makes the open fail
// (ELOOP, or ENOTDIR for a directory component) instead of being followed
// to a place the check never saw. flag adds os.O_WRONLY, os.O_CREATE and
// the like to the final open. With mkdirs, missing directories on the way
// are created (mode 0755), also without following symlinks.
func openResolved(real string, flag int, perm os.FileMode, mkdirs bool) (*os.File, error) {
	parts := strings.Split(strings.TrimPrefix(real, "/"), "/")
	if real == "/" || len(parts) == 0 {
		return nil, errNotRegular
	}
	dir, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: real, Err: err}
	}
	for _, c := range parts[:len(parts)-1] {
		const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | baseFlags
		next, err := unix.Openat(dir, c, dirFlags, 0)
		if errors.Is(err, unix.ENOENT) && mkdirs {
			// EEXIST: another writer made it first; open it all the same.
			if err = unix.Mkdirat(dir, c, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = unix.Openat(dir, c, dirFlags, 0)
			}
		}
		unix.Close(dir)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: real, Err: noFollowErr(err)}
		}
		dir = next
	}
	fd, err := unix.Openat(dir, parts[len(parts)-1], flag|unix.O_NOFOLLOW|baseFlags, uint32(perm.Perm()))
	unix.Close(dir)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: real, Err: noFollowErr(err)}
	}
	return os.NewFile(uintptr(fd), real), nil
}

// noFollowErr maps the errno of an O_NOFOLLOW open that met a symlink to
// errTooManyLinks (macOS and Linux both say ELOOP), so the outcome reads
// "too many symbolic links" rather than a vague i/o error.
func noFollowErr(err error) error {
	if errors.Is(err, unix.ELOOP) {
		return errTooManyLinks
	}
	return err
}

// openDirResolved opens real, a directory path realPath produced, the way
// openResolved opens a file: no symlink followed, no blocking.
func openDirResolved(real string) (*os.File, error) {
	if real == "/" {
		return openDir(real)
	}
	return openResolved(real, os.O_RDONLY|unix.O_DIRECTORY, 0, false)
}

// linkCount is the number of hard links of the file fi describes.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// replaceFile gives real (a resolved path to an existing file) the content
// read from data through a new file: it is created beside real (mode perm, umask
// aside), written, and renamed over real, so the old file, and every other
// hard link to it, is left as it was. The directory is opened as
// openResolved opens it and the new file is made relative to it, so no
// symlink swapped in is followed; a failed write leaves no new file.
func replaceFile(real string, data io.Reader, perm os.FileMode) error {
	dir, err := openDirResolved(filepath.Dir(real))
	if err != nil {
		return err
	}
	defer dir.Close()
	dfd := int(dir.Fd())
	base := filepath.Base(real)
	var tmp string
	var fd int
	for range 8 {
		tmp = "." + base + ".magi-tmp-" + strconv.FormatUint(rand.Uint64(), 36)
		fd, err = unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm))
		if !errors.Is(err, unix.EEXIST) {
			break
		}
	}
	if err != nil {
		return &os.PathError{Op: "create", Path: real, Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, err = io.Copy(f, data)
	if err == nil {
		err = f.Chmod(perm) // the umask may have narrowed the mode
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dfd, tmp, dfd, base)
	}
	if err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return &os.PathError{Op: "replace", Path: real, Err: err}
	}
	return nil
}

// openChild opens the entry name of the open directory d, relative to it,
// without following a symlink there and without blocking; dir asks for a
// directory (anything else fails).
func openChild(d *os.File, name string, dir bool) (*os.File, error) {
	flag := unix.O_RDONLY | unix.O_NOFOLLOW | baseFlags
	if dir {
		flag |= unix.O_DIRECTORY
	}
	fd, err := unix.Openat(int(d.Fd()), name, flag, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), d.Name()+"/"+name), nil
}

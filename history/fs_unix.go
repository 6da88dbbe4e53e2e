//go:build linux || darwin

package history

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/magi-code/magi-code/internal/filelock"
	"github.com/magi-code/magi-code/protocol"
	"golang.org/x/sys/unix"
)

// Every session and lease file is opened without following symlinks and
// without blocking (a FIFO planted as a session file must not hang the
// open), close-on-exec, and checked with fstat to be a regular file.
const safeFlags = unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// lockLeaseFile opens (creating it) and locks one lease file. Prune may
// remove a lock file while a locker opens it: a locker that opened the file
// before its removal finds, after its lock, that the path no longer names
// what it locked, and reports the session busy instead of holding a lease
// nobody else sees.
func lockLeaseFile(path string) (*os.File, protocol.Code) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|safeFlags, 0o600)
	if err != nil {
		return nil, protocol.CodeSessionInvalid
	}
	f := os.NewFile(uintptr(fd), filepath.Base(path))
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		f.Close()
		return nil, protocol.CodeSessionInvalid
	}
	switch ok, err := filelock.TryLock(f); {
	case err != nil:
		f.Close()
		return nil, protocol.CodeSessionInvalid
	case !ok:
		f.Close()
		return nil, protocol.CodeSessionBusy
	}
	var now unix.Stat_t
	if unix.Lstat(path, &now) != nil || now.Ino != st.Ino || now.Dev != st.Dev {
		// Prune removed the file while we opened it: what we locked is
		// no longer the lease.
		f.Close()
		return nil, protocol.CodeSessionBusy
	}
	return f, ""
}

// removeFiles unlinks the lease's lock files; call it only while holding
// the lease (Prune, after deleting the session file).
func (l *lease) removeFiles(sessionsDir, id string) {
	for _, name := range leaseNames(id) {
		_ = os.Remove(filepath.Join(sessionsDir, leaseDir, name))
	}
}

// openSession opens an existing session file for reading and appending.
// Codes: session_missing when it does not exist; session_invalid when it is
// not a regular file (FIFO, symlink, directory, device) or cannot be opened.
func openSession(path string) (*os.File, int64, protocol.Code) {
	// Lstat first so that a device or FIFO is never opened at all; the
	// O_NOFOLLOW open plus fstat below closes the race with a swap.
	var lst unix.Stat_t
	if err := unix.Lstat(path, &lst); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, 0, protocol.CodeSessionMissing
		}
		return nil, 0, protocol.CodeSessionInvalid
	}
	if lst.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, 0, protocol.CodeSessionInvalid
	}
	fd, err := unix.Open(path, unix.O_RDWR|safeFlags, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, 0, protocol.CodeSessionMissing
		}
		return nil, 0, protocol.CodeSessionInvalid
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Ino != lst.Ino || st.Dev != lst.Dev {
		unix.Close(fd)
		return nil, 0, protocol.CodeSessionInvalid
	}
	return os.NewFile(uintptr(fd), filepath.Base(path)), st.Size, ""
}

// createSession creates a new session file; it fails if anything exists at
// path (never clobbers, never follows a planted symlink).
func createSession(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|safeFlags, 0o600)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Base(path)), nil
}

// exists reports whether anything (even a dangling symlink) is at path.
func exists(path string) bool {
	var st unix.Stat_t
	return !errors.Is(unix.Lstat(path, &st), unix.ENOENT)
}

// syncDir fsyncs a directory so that a newly created file's entry is durable.
func syncDir(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Fsync(fd)
}

//go:build linux || darwin

package history

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/magi-code/magi-code/protocol"
	"golang.org/x/sys/unix"
)

// Every session and lease file is opened without following symlinks and
// without blocking (a FIFO planted as a session file must not hang the
// open), close-on-exec, and checked with fstat to be a regular file.
const safeFlags = unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// lease is the writer and active lease of one session: exclusive flocks on
// two lock files under <sessionsDir>/.leases. A flock belongs to the open
// file description, so a second attachment conflicts whether it lives in
// another process or in this one. Lock files are removed only by Prune,
// while it holds them; a locker that opened a file before its removal finds,
// after its flock, that the path no longer names what it locked, and
// reports the session busy instead of holding a lease nobody else sees.
type lease struct {
	files [2]*os.File // active, writer
}

// leaseDir is where lock files live, beside the session files, so that a
// lazy session (no file yet) can hold its leases too.
const leaseDir = ".leases"

func acquireLease(sessionsDir, id string) (*lease, protocol.Code) {
	dir := filepath.Join(sessionsDir, leaseDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, protocol.CodeSessionInvalid
	}
	l := &lease{}
	for i, name := range [2]string{id + ".active", id + ".writer"} {
		fd, err := unix.Open(filepath.Join(dir, name), unix.O_RDWR|unix.O_CREAT|safeFlags, 0o600)
		if err != nil {
			l.release()
			return nil, protocol.CodeSessionInvalid
		}
		f := os.NewFile(uintptr(fd), name)
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
			f.Close()
			l.release()
			return nil, protocol.CodeSessionInvalid
		}
		if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			l.release()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, protocol.CodeSessionBusy
			}
			return nil, protocol.CodeSessionInvalid
		}
		var now unix.Stat_t
		if unix.Lstat(filepath.Join(dir, name), &now) != nil || now.Ino != st.Ino || now.Dev != st.Dev {
			// Prune removed the file while we opened it: what we locked is
			// no longer the lease.
			f.Close()
			l.release()
			return nil, protocol.CodeSessionBusy
		}
		l.files[i] = f
	}
	return l, ""
}

// removeFiles unlinks the lease's lock files; call it only while holding
// the lease (Prune, after deleting the session file).
func (l *lease) removeFiles(sessionsDir, id string) {
	for _, name := range [2]string{id + ".active", id + ".writer"} {
		_ = os.Remove(filepath.Join(sessionsDir, leaseDir, name))
	}
}

// release closes the lock files, which drops both flocks. Idempotent.
func (l *lease) release() {
	for i, f := range l.files {
		if f != nil {
			f.Close()
			l.files[i] = nil
		}
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

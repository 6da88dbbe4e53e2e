//go:build windows

package history

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"

	"github.com/magi-code/magi-code/internal/filelock"
	"github.com/magi-code/magi-code/protocol"
)

// On Windows every session and lease file is opened without following a
// reparse point (symlink, junction: the link itself is opened and then
// refused as not regular), and checked through its handle to be a regular
// file, which also refuses a named pipe or a device. IDs that Windows takes
// for a device (CON, NUL, COM1, ...) are refused before anything is opened.
//
// Go opens files sharing read and write but not delete, so a file cannot be
// deleted while any handle to it is open. That is what keeps Prune from
// removing a lease file that a concurrent locker has open: Prune closes its
// own handles first and then removes, and the removal fails while anyone
// else holds the file.
const noFollow = windows.O_FILE_FLAG_OPEN_REPARSE_POINT

func lockLeaseFile(path string) (*os.File, protocol.Code) {
	if windowsDeviceName(filepath.Base(path)) {
		return nil, protocol.CodeSessionInvalid
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		if transient(err) {
			return nil, protocol.CodeSessionBusy
		}
		return nil, protocol.CodeSessionInvalid
	}
	if !regular(f) {
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
	return f, ""
}

// transient reports an open refused because another handle does not share
// access (a file scanner, say): the holder's business, reported as busy.
func transient(err error) bool { return errors.Is(err, windows.ERROR_SHARING_VIOLATION) }

// regular reports whether the open handle f is a regular file (not a
// reparse point, directory, pipe or device).
func regular(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// removeFiles drops the lease and then removes its lock files (Prune, after
// deleting the session file). A removal fails, and the file stays, when
// another locker opened it in between: that locker then holds a lease on
// the file that is still there.
func (l *lease) removeFiles(sessionsDir, id string) {
	l.release()
	for _, name := range leaseNames(id) {
		_ = os.Remove(filepath.Join(sessionsDir, leaseDir, name))
	}
}

// openSession opens an existing session file for reading and appending.
// Codes: session_missing when it does not exist; session_invalid when it is
// not a regular file (reparse point, directory, device, pipe) or cannot be
// opened.
func openSession(path string) (*os.File, int64, protocol.Code) {
	if windowsDeviceName(filepath.Base(path)) {
		return nil, 0, protocol.CodeSessionInvalid
	}
	// Lstat first so that nothing but a regular file is opened at all; the
	// no-follow open plus the handle's check below close the race with a
	// swap.
	lst, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, protocol.CodeSessionMissing
	}
	if err != nil || !lst.Mode().IsRegular() {
		return nil, 0, protocol.CodeSessionInvalid
	}
	f, err := os.OpenFile(path, os.O_RDWR|noFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, protocol.CodeSessionMissing
	}
	if err != nil {
		return nil, 0, protocol.CodeSessionInvalid
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, protocol.CodeSessionInvalid
	}
	return f, fi.Size(), ""
}

// createSession creates a new session file; it fails if anything exists at
// path (CREATE_NEW, which never follows a planted link).
func createSession(path string) (*os.File, error) {
	if windowsDeviceName(filepath.Base(path)) {
		return nil, errDeviceName
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
}

var errDeviceName = errors.New("history: a Windows device name")

// exists reports whether anything (even a dangling link) is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// syncDir does nothing on Windows, which documents no way to flush a
// directory entry (FlushFileBuffers is documented for files, and for whole
// volumes with administrator rights); NTFS logs the creation of a file in
// its metadata journal. The session file's own data is flushed by
// File.Sync, which is FlushFileBuffers there.
func syncDir(string) error { return nil }

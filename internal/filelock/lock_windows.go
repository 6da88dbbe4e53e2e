//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock locks the first byte of f with LockFileEx (exclusive, fail
// immediately). The lock belongs to the file handle: closing f drops it.
// It is a byte-range lock, so it never stops reading or writing through the
// handle that holds it; none of our lock files hold data.
func tryLock(f *os.File) (bool, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var lerr error
	if err := rc.Control(func(h uintptr) {
		ol := new(windows.Overlapped)
		lerr = windows.LockFileEx(windows.Handle(h),
			windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	}); err != nil {
		return false, err
	}
	if errors.Is(lerr, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return lerr == nil, lerr
}

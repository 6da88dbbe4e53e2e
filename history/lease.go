package history

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/magi-code/magi-code/protocol"
)

// lease is the writer and active lease of one session: exclusive locks
// (internal/filelock) on two lock files under <sessionsDir>/.leases. A lock
// belongs to the open file, so a second attachment conflicts whether it
// lives in another process or in this one. Lock files are removed only by
// Prune, while it holds them (fs_unix.go and fs_windows.go say how a
// concurrent locker is kept from holding a lease on a removed file).
type lease struct {
	files [2]*os.File // active, writer
}

// leaseDir is where lock files live, beside the session files, so that a
// lazy session (no file yet) can hold its leases too.
const leaseDir = ".leases"

// leaseNames are the two lock files of session id.
func leaseNames(id string) [2]string { return [2]string{id + ".active", id + ".writer"} }

// acquireLease takes both leases of id, or none. Codes: session_busy when
// another holder has either; session_invalid when a lock file cannot be
// made, is not a regular file, or cannot be locked.
func acquireLease(sessionsDir, id string) (*lease, protocol.Code) {
	dir := filepath.Join(sessionsDir, leaseDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, protocol.CodeSessionInvalid
	}
	l := &lease{}
	for i, name := range leaseNames(id) {
		f, code := lockLeaseFile(filepath.Join(dir, name))
		if code != "" {
			l.release()
			return nil, code
		}
		l.files[i] = f
	}
	return l, ""
}

// release closes the lock files, which drops both locks. Idempotent.
func (l *lease) release() {
	for i, f := range l.files {
		if f != nil {
			f.Close()
			l.files[i] = nil
		}
	}
}

// windowsDeviceName reports whether Windows takes the file name base for a
// device rather than a file: CON, PRN, AUX, NUL, COM0-9, LPT0-9 (and the
// console and clock names), in any case, with or without an extension
// ("CON.jsonl" is the console on Windows 10). The session grammar admits
// such IDs, so on Windows the store refuses them as unsafe before opening
// anything (fs_windows.go). A pure function, so that it is tested on every
// OS.
func windowsDeviceName(base string) bool {
	stem, _, _ := strings.Cut(base, ".")
	stem = strings.ToUpper(strings.TrimRight(stem, " "))
	switch stem {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$":
		return true
	}
	if len(stem) == 4 && (strings.HasPrefix(stem, "COM") || strings.HasPrefix(stem, "LPT")) {
		return stem[3] >= '0' && stem[3] <= '9'
	}
	return false
}

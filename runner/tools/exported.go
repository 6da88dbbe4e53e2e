package tools

import "os"

// What other packages share with the file tools' protections (protect.go),
// so that one rule decides in one place: runner/config reads skills, agent
// profiles and instruction files through them.

// IsCredentialFile reports whether the clean absolute path p is a
// credential file by the file tools' rule (its name, extension or
// directory), without the MC_HOME rule: callers that read from MC_HOME on
// purpose decide about it themselves.
func IsCredentialFile(p string) bool { return Options{}.credentialPath(p) }

// OpenResolvedRead opens real, a clean absolute path that was resolved and
// held no symlink when checked, for reading: one component at a time
// without following a symlink swapped in after the check, and without
// blocking on a FIFO or device (the caller checks the file's type).
func OpenResolvedRead(real string) (*os.File, error) {
	return openResolved(real, os.O_RDONLY, 0, false)
}

// Clip makes s valid UTF-8 and fits it in limit bytes, ending in
// TruncatedMarker when it was cut: how every tool bounds what it hands the
// model.
func Clip(s string, limit int) string {
	out, _ := clip(s, limit, false)
	return out
}

package ostest

import (
	"os"
	"path/filepath"
	"testing"
)

// OutsideTemp makes a directory for t outside the temp directory (os.TempDir
// and /tmp), which an OS sandbox's defaults keep writable, and outside the
// test's working directory, which a clone under /tmp puts below it: a
// canary there must survive a confined command. It is /var/tmp's (removed
// at t's end); t skips where that cannot be made.
func OutsideTemp(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "magi-outside-")
	if err != nil {
		t.Skipf("no directory outside the temp directory to test with: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, tmp := range []string{os.TempDir(), "/tmp"} {
		if rel, err := filepath.Rel(tmp, dir); err == nil && filepath.IsLocal(rel) {
			t.Skipf("/var/tmp is below the temp directory %s here", tmp)
		}
	}
	return dir
}

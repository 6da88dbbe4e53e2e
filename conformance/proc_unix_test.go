//go:build unix

package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/internal/proctest"
)

// killProcessGroup reaches what the server started, not only the server:
// a background child of the shell dies with it.
func TestKillProcessGroupReachesChildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("/bin/sh", "-c", "sleep 60 & echo $! > "+pidFile+"; wait")
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(10 * time.Second); child == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			killProcessGroup(cmd)
			_ = cmd.Wait()
			t.Fatal("the shell did not start its child within 10s")
		}
		b, _ := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	killProcessGroup(cmd)
	_ = cmd.Wait()
	proctest.WaitGone(t, child)
}

package hooks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/sandbox"
)

// TestHookSandboxed: a hook of a Runner made Sandboxed cannot delete a
// directory outside its writable roots; it can write in its cwd.
func TestHookSandboxed(t *testing.T) {
	if st := sandbox.Probe(); !st.Available {
		t.Skipf("no OS sandbox here: %s", st.Reason)
	}
	self, err := sandbox.Self()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	ws, canary := filepath.Join(root, "ws"), filepath.Join(root, "canary")
	for _, d := range []string{ws, canary} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wrap := func(cmd *exec.Cmd) error { return sandbox.Policy{Writable: []string{ws}}.Wrap(cmd, self) }
	r := New([]config.Hook{{Event: Stop, Command: "touch inside; rm -rf " + canary}}, ws, "test", nil).Sandboxed(wrap)
	err = r.Stop(context.Background(), "completed")
	if err == nil {
		t.Error("the hook's delete outside its roots succeeded")
	}
	if _, err := os.Stat(canary); err != nil {
		t.Fatalf("the canary is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "inside")); err != nil {
		t.Errorf("the hook could not write in its cwd: %v", err)
	}
}

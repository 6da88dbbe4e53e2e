package session

import (
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/proctest"
)

// TestCrashEndsConfinedCommands: a child killed with SIGKILL while a
// confined command runs (approval = "auto" with the OS sandbox) leaves
// none of the command's processes behind: not its background job, not one
// that left its group with setsid. The kernel's parent-death signal asks
// the command's supervisor to end them all.
func TestCrashEndsConfinedCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	tok := proctest.NewToken(t)
	cmd := "setsid sleep " + tok + " </dev/null >/dev/null 2>&1 & sleep " + tok + " & echo > " + clienttest.Quote(started) + "; wait"
	ws := newWorkspace(t, "auto", response(shell(cmd)), response(text("after the tool")))
	ch := start(t, ws, client.Options{})
	var st struct {
		Sandbox string `json:"sandbox"`
	}
	if ch.Result("status", nil, &st); st.Sandbox != "workspace-write" {
		ch.Shutdown()
		t.Skipf("no OS sandbox here (status sandbox %q)", st.Sandbox)
	}
	s := ch.Create()
	ch.StartTurn(s.SessionID, "run it")
	clienttest.WaitFor(t, "the command to start its processes", func() bool {
		return clienttest.FileExists(started) && len(proctest.WithArg(tok)) >= 3
	})
	ch.C.Kill()
	ch.C.Wait()
	clienttest.WaitFor(t, "the command's processes to end", func() bool { return len(proctest.WithArg(tok)) == 0 })
}

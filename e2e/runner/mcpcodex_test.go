package runner

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestMCPCodexKeys: Codex's keys through serve --stdio. tool_timeout_sec
// ends a call that outlives it (the server is told, the turn goes on and
// the activity says it timed out); disabled_tools keeps a tool from the
// model, so a call to it never reaches the server.
func TestMCPCodexKeys(t *testing.T) {
	t.Parallel()
	ws, calls := mcpWorkspace(t, "auto", "tool_timeout_sec = 0.2\ndisabled_tools = [\"store\"]\n",
		[]step{toolCall("mcp__srv__hang", nil)},
		[]step{toolCall("mcp__srv__store", map[string]any{"key": "k", "value": "v"})},
		[]step{text("went on")})
	ch := startChild(t, ws, client.Options{})
	sid := ch.Create().SessionID
	r := ch.Turn(sid, "hang, then store")
	r.WantOutcome(t, "completed", "")
	if r.Reply() != "went on" {
		t.Fatalf("reply %q", r.Reply())
	}
	acts := r.Activities
	if len(acts) < 2 || acts[0].Name != "mcp__srv__hang" || acts[1].State != "failed" || !strings.Contains(acts[1].Summary, "timed out") {
		t.Fatalf("activities %+v; want the hang call started, then failed as timed out", acts)
	}
	// The timeout reaches the server as a cancellation; the disabled tool
	// never does.
	clienttest.WaitFor(t, "the server to see the cancellation", func() bool { return strings.Contains(readFile(t, calls), "hang cancelled") })
	if got := readFile(t, calls); strings.Contains(got, "store") {
		t.Fatalf("server calls %q; the disabled tool was called", got)
	}
	ch.Shutdown()
}

// TestMCPStartupTimeout: a server that never answers its handshake fails
// initialization with mcp_unavailable once its startup_timeout_sec has
// passed, and the diagnostic log says so with that bound (the default,
// 10 s, would read "after 10s").
func TestMCPStartupTimeout(t *testing.T) {
	t.Parallel()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings+
		"\n[mcp_servers.mute]\ncommand = "+clienttest.Quote(sleep)+"\nargs = [\"600\"]\nstartup_timeout_sec = 0.3\n")
	ch := &child{ws.Spawn(t, client.Options{})}
	ch.WantError("initialize", map[string]any{"required_capabilities": []string{}}, protocol.CodeMCPUnavailable)
	ch.Shutdown()
	logs, err := filepath.Glob(filepath.Join(ws.Home, "logs", "serve-*.log"))
	if err != nil || len(logs) != 1 {
		t.Fatalf("log files %v, %v; want one", logs, err)
	}
	if got := readFile(t, logs[0]); !strings.Contains(got, "startup timed out after 300ms") {
		t.Fatalf("the log does not name the startup timeout of 300ms:\n%s", got)
	}
}

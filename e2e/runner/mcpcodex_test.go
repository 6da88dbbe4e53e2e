package runner

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
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

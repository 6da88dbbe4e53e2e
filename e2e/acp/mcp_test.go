//go:build unix

package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// TestClientMCPServer: an MCP server from session/new's mcpServers starts
// without any approval in the settings; the model calls its tool (a
// read-only one asks nothing); a server that cannot start is a visible
// message after the answer, not a failure of the session.
func TestClientMCPServer(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{
		response(clienttest.ToolCall("mcp__editor__lookup", map[string]any{"key": "k1"})), response(text("looked")),
	}})
	calls := filepath.Join(t.TempDir(), "calls")
	a := start(t, ws)
	a.initialize()
	r, after := a.call("session/new", map[string]any{"cwd": ws.Cwd, "mcpServers": []any{
		map[string]any{"name": "editor", "command": mcpServerBin, "args": []any{},
			"env": []any{map[string]any{"name": "MCP_CALLS_FILE", "value": calls}}},
		map[string]any{"name": "broken", "command": filepath.Join(ws.Cwd, "no-such-server"), "args": []any{}, "env": []any{}},
	}})
	if r.Error != nil || len(after) != 0 {
		t.Fatalf("session/new: %s (%d frames before)", r.raw, len(after))
	}
	var sid string
	if i := strings.Index(r.raw, `"sessionId":"`); i >= 0 {
		sid = r.raw[i+13 : i+13+36]
	}
	// Commands, then the notice about the broken server.
	var notice string
	for notice == "" {
		f := a.next()
		if u := f.update(t).Update; u.Kind == "agent_message_chunk" {
			notice = u.Text
		}
	}
	if !strings.Contains(notice, "broken") || strings.Contains(notice, "editor") {
		t.Errorf("notice %q", notice)
	}
	resp, seen := a.until(a.prompt(sid, "look it up"), nil)
	if stopReason(t, resp) != "end_turn" {
		t.Fatalf("prompt: %s", resp.raw)
	}
	var out string
	for _, f := range seen {
		if f.Method == "session/request_permission" {
			t.Errorf("a read-only MCP tool asked")
		}
		if _, c := toolStatuses(t, []frame{f}, "call_1"); c != "" {
			out = c
		}
	}
	if !strings.Contains(out, "MCP-RESULT-BODY-k1") {
		t.Errorf("tool output %q", out)
	}
	if b, _ := os.ReadFile(calls); !strings.Contains(string(b), "lookup") {
		t.Errorf("calls file %q", b)
	}
	a.wantExit(0)
}

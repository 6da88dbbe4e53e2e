package runner

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestHooks runs hooks through the process: a pre_tool_use hook that exits
// 2 blocks the call (its effect never happens, no diagnostic); a failing
// hook (exit 1, a timeout) is a diagnostic and the run still completes,
// with the call going on. No frame quotes a hook's command.
func TestHooks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		hooks string
		// mcp: the first response calls mcp__srv__store instead of a shell
		// command that touches a marker; wantRan: the call's effect happened.
		mcp        bool
		wantRan    bool
		wantDiag   int
		wantStates []string
	}{
		{name: "pre_tool_use exit 2 blocks shell",
			hooks:   hook("pre_tool_use", "shell", "echo 'not allowed here' >&2; exit 2 # HOOKCMD"),
			wantRan: false, wantStates: []string{"started", "failed"}},
		{name: "pre_tool_use exit 2 blocks an MCP tool", mcp: true,
			hooks:   hook("pre_tool_use", "mcp__srv__.*", "exit 2 # HOOKCMD"),
			wantRan: false, wantStates: []string{"started", "failed"}},
		{name: "a hook for other tools does not block",
			hooks:   hook("pre_tool_use", "shell_extra|write_file", "exit 2 # HOOKCMD"),
			wantRan: true, wantStates: []string{"started", "completed"}},
		{name: "failing pre_tool_use is a diagnostic",
			hooks:   hook("pre_tool_use", "shell", "echo HOOKCMD-output >&2; exit 1 # HOOKCMD"),
			wantRan: true, wantDiag: 1, wantStates: []string{"started", "completed"}},
		{name: "failing post_tool_use and stop are diagnostics",
			hooks:   hook("post_tool_use", "", "exit 1 # HOOKCMD") + hook("stop", "", "exit 3 # HOOKCMD"),
			wantRan: true, wantDiag: 2, wantStates: []string{"started", "completed"}},
		{name: "a hook past its timeout is a diagnostic",
			hooks:   hook("pre_tool_use", "shell", "sleep 60 # HOOKCMD") + "timeout_ms = 100\n",
			wantRan: true, wantDiag: 1, wantStates: []string{"started", "completed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			marker := filepath.Join(dir, "marker")
			call := shell("touch " + marker)
			if tc.mcp {
				call = toolCall("mcp__srv__store", map[string]any{"value": "v"})
			}
			ws, calls := mcpWorkspace(t, "auto", tc.hooks, []step{call}, []step{text("after the tool")})
			ch := startChild(t, ws, client.Options{RecordFrames: true})
			sid := ch.Create().SessionID
			r := ch.Turn(sid, "use the tool")
			r.WantOutcome(t, "completed", "")
			if r.Reply() != "after the tool" {
				t.Fatalf("reply %q", r.Reply())
			}
			ran := clienttest.FileExists(marker)
			if tc.mcp {
				ran = strings.Contains(readFile(t, calls), "store")
			}
			if ran != tc.wantRan {
				t.Fatalf("the tool ran: %v; want %v", ran, tc.wantRan)
			}
			var states []string
			for _, a := range r.Activities {
				states = append(states, a.State)
			}
			if !slices.Equal(states, tc.wantStates) {
				t.Fatalf("activity states %q; want %q", states, tc.wantStates)
			}
			diags := r.Diagnostics()
			if len(diags) != tc.wantDiag {
				t.Fatalf("diagnostics %q; want %d", diags, tc.wantDiag)
			}
			// Only codes of the protocol reach the wire (clients fail closed
			// on unknown ones): a hook failure is execution_failed.
			for _, d := range diags {
				if d != string(protocol.CodeExecutionFailed) {
					t.Fatalf("diagnostic code %q; want %q", d, protocol.CodeExecutionFailed)
				}
			}
			for _, f := range ch.C.Frames() {
				if bytes.Contains(f.Raw, []byte("HOOKCMD")) {
					t.Fatalf("frame %d quotes a hook's command or output: %s", f.Seq, f.Raw)
				}
			}
			// History keeps the diagnostics.
			n := 0
			for _, k := range clienttest.Kinds(ch.history(sid, r)) {
				if k == "diagnostic" {
					n++
				}
			}
			if n != tc.wantDiag {
				t.Fatalf("%d diagnostic entries in history; want %d", n, tc.wantDiag)
			}
			ch.Shutdown()
		})
	}
}

// TestHookBlockReasonReachesModel: the reason a blocking hook writes to
// stderr is the tool result the model sees (the OpenAI provider against a
// local server that records requests), and the blocked command never runs.
func TestHookBlockReasonReachesModel(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "marker")
	llm := newLLMServer(t, oaTurn(content{toolName: "shell",
		toolArgs: []string{`{"command":` + clienttest.Quote("touch "+marker) + `}`}, after: []string{"understood"}})...)
	settings := openaiFormat.settings(llm.srv.URL) + "\n[tools]\napproval = \"auto\"\n" +
		hook("pre_tool_use", "shell", "echo 'markers are not allowed' >&2; exit 2")
	ws := clienttest.NewWorkspace(t, settings)
	ch := startChild(t, ws, client.Options{Env: append(ws.Env(), "OPENAI_API_KEY=sk-test-hooks")})
	sid := ch.Create().SessionID
	r := ch.Turn(sid, "touch the marker")
	r.WantOutcome(t, "completed", "")
	if clienttest.FileExists(marker) {
		t.Fatal("a blocked command ran")
	}
	reqs := llm.recorded()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if res := toolResults(t, reqs[1].Body); len(res) != 1 || !strings.Contains(res[0], "markers are not allowed") {
		t.Fatalf("tool results the model saw: %q", res)
	}
	ch.Shutdown()
}

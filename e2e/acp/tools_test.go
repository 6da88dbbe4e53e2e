//go:build unix

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/proctest"
)

// permission is a session/request_permission's params.
type permission struct {
	SessionID string `json:"sessionId"`
	ToolCall  struct {
		ToolCallID string `json:"toolCallId"`
		Title      string `json:"title"`
		Kind       string `json:"kind"`
	} `json:"toolCall"`
	Options []struct {
		OptionID string `json:"optionId"`
		Kind     string `json:"kind"`
	} `json:"options"`
}

// toolStatuses lists the statuses a tool call went through, and the text
// of its final content.
func toolStatuses(t testing.TB, frames []frame, id string) (statuses []string, content string) {
	for _, f := range frames {
		if f.Method != "session/update" {
			continue
		}
		u := f.update(t).Update
		if (u.Kind == "tool_call" || u.Kind == "tool_call_update") && u.ToolCallID == id {
			statuses = append(statuses, u.Status)
			var c []struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if json.Unmarshal(u.Content, &c) == nil && len(c) > 0 {
				content = c[0].Content.Text
			}
		}
	}
	return statuses, content
}

// TestPermission: under ask, a shell call asks on its tool call with the
// whole command as title (redacted); allow_once runs it (pending ->
// in_progress -> completed, with its output, redacted), reject_once does
// not (pending -> failed); allow_always is a grant for that exact command:
// the same command later runs without asking, another one asks.
func TestPermission(t *testing.T) {
	cmd := "echo out-" + secret
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{
		response(shell(cmd)), response(text("ran")),
		response(shell("echo second > f")), response(text("refused")),
		response(shell("echo always")), response(text("a")),
		response(shell("echo always")), response(text("b")),
		response(shell("echo other")), response(text("c")),
	}})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()

	answer := func(option string, asked *[]permission) func(frame) {
		return func(f frame) {
			if f.Method != "session/request_permission" {
				return
			}
			var p permission
			if err := json.Unmarshal(f.Params, &p); err != nil {
				t.Fatal(err)
			}
			*asked = append(*asked, p)
			a.respond(f.ID, selected(option))
		}
	}
	var asked []permission
	resp, seen := a.until(a.prompt(sid, "go"), answer("allow_once", &asked))
	if stopReason(t, resp) != "end_turn" || len(asked) != 1 {
		t.Fatalf("allow: %s, asked %d", resp.raw, len(asked))
	}
	p := asked[0]
	if p.SessionID != sid || p.ToolCall.Kind != "execute" || p.ToolCall.Title != "echo out-[REDACTED]" || len(p.Options) != 3 {
		t.Errorf("request %+v", p)
	}
	st, out := toolStatuses(t, seen, p.ToolCall.ToolCallID)
	if strings.Join(st, ",") != "pending,in_progress,completed" || out != "out-[REDACTED]\n" {
		t.Errorf("allowed call: %v, output %q", st, out)
	}
	for _, f := range seen {
		if strings.Contains(f.raw, secret[:20]) {
			t.Errorf("the secret reached a frame: %.200s", f.raw)
		}
	}

	asked = nil
	resp, seen = a.until(a.prompt(sid, "again"), answer("reject_once", &asked))
	st, _ = toolStatuses(t, seen, asked[0].ToolCall.ToolCallID)
	if stopReason(t, resp) != "end_turn" || strings.Join(st, ",") != "pending,failed" {
		t.Errorf("rejected call: %s, %v", resp.raw, st)
	}
	if _, err := os.Stat(filepath.Join(ws.Cwd, "f")); err == nil {
		t.Error("the rejected command ran")
	}

	asked = nil
	a.until(a.prompt(sid, "always"), answer("allow_always", &asked))
	a.until(a.prompt(sid, "always again"), answer("allow_once", &asked))
	a.until(a.prompt(sid, "other"), answer("reject_once", &asked))
	if len(asked) != 2 || asked[1].ToolCall.Title != "echo other" {
		t.Errorf("after allow_always: asked %+v", asked)
	}
	a.wantExit(0)
}

// TestCancelMidPermission: session/cancel while a permission request waits
// stops the wait; the prompt answers cancelled, the command never ran, and
// the client's late answer changes nothing.
func TestCancelMidPermission(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{
		response(shell("echo x > ran")),
	}})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	var reqID json.RawMessage
	resp, seen := a.until(a.prompt(sid, "go"), func(f frame) {
		if f.Method == "session/request_permission" {
			reqID = f.ID
			a.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
		}
	})
	if stopReason(t, resp) != "cancelled" || reqID == nil {
		t.Fatalf("prompt: %s", resp.raw)
	}
	var callID string
	for _, f := range seen {
		if f.Method == "session/update" && f.update(t).Update.Kind == "tool_call" {
			callID = f.update(t).Update.ToolCallID
		}
	}
	if st, _ := toolStatuses(t, seen, callID); strings.Join(st, ",") != "pending,failed" {
		t.Errorf("cancelled call: %v", st)
	}
	a.respond(reqID, selected("allow_once")) // late: changes nothing
	r, _ := a.call("session/list", map[string]any{})
	if r.Error != nil {
		t.Errorf("after the late answer: %s", r.raw)
	}
	if _, err := os.Stat(filepath.Join(ws.Cwd, "ran")); err == nil {
		t.Error("the command ran")
	}
	a.wantExit(0)
}

// TestCancelMidTool: session/cancel while a command runs kills its whole
// process group and answers cancelled.
func TestCancelMidTool(t *testing.T) {
	pidFile, tok := "pids", proctest.NewToken(t)
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "auto", Extra: "unsandboxed_auto = true\n", Responses: [][]clienttest.Step{
		response(shell("sleep " + tok + " & echo $$ $! > " + pidFile + "; wait")),
	}})
	var pids []int
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	resp, _ := a.until(a.prompt(sid, "go"), func(f frame) {
		if f.Method == "session/update" && f.update(t).Update.Status == "in_progress" {
			clienttest.WaitFor(t, "the command's pids", func() bool {
				b, err := os.ReadFile(filepath.Join(ws.Cwd, pidFile))
				return err == nil && strings.Count(string(b), " ") == 1
			})
			pids = proctest.Marked(t, tok, 2) // the shell and its sleep
			a.send(map[string]any{"jsonrpc": "2.0", "method": "session/cancel", "params": map[string]any{"sessionId": sid}})
		}
	})
	if stopReason(t, resp) != "cancelled" {
		t.Fatalf("prompt: %s", resp.raw)
	}
	proctest.WaitGone(t, pids...)
	a.wantExit(0)
}

// TestEOFMidTurn: stdin's end while a command runs kills it, releases the
// session and exits 0; no process survives.
func TestEOFMidTurn(t *testing.T) {
	tok := proctest.NewToken(t)
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "auto", Extra: "unsandboxed_auto = true\n", Responses: [][]clienttest.Step{
		response(shell("sleep " + tok + " & echo $$ $! > pids; wait")),
	}})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	a.prompt(sid, "go")
	clienttest.WaitFor(t, "the command's pids", func() bool {
		b, err := os.ReadFile(filepath.Join(ws.Cwd, "pids"))
		return err == nil && strings.Count(string(b), " ") == 1
	})
	pids := proctest.Marked(t, tok, 2) // the shell and its sleep
	a.wantExit(0)
	proctest.WaitGone(t, pids...)
}

// TestGrantNotUnderReadOnly: a command granted with allow_always runs
// unasked under ask, but once the mode is read-only it is refused like any
// call that would ask: a grant never widens what read-only allows.
func TestGrantNotUnderReadOnly(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{
		response(shell("echo g >> granted.txt")), response(text("a")),
		response(shell("echo g >> granted.txt")), response(text("b")),
		response(shell("echo g >> granted.txt")), response(text("c")),
	}})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	asked := 0
	answer := func(f frame) {
		if f.Method == "session/request_permission" {
			asked++
			a.respond(f.ID, selected("allow_always"))
		}
	}
	a.until(a.prompt(sid, "grant"), answer)
	a.until(a.prompt(sid, "again"), answer)
	if r, _ := a.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "value": "read-only"}); r.Error != nil {
		t.Fatalf("set mode: %s", r.raw)
	}
	a.until(a.prompt(sid, "read-only"), answer)
	b, _ := os.ReadFile(filepath.Join(ws.Cwd, "granted.txt"))
	if asked != 1 || string(b) != "g\ng\n" {
		t.Fatalf("asked %d, granted.txt %q; want one question and two runs (none under read-only)", asked, b)
	}
	a.wantExit(0)
}

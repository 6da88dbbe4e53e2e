//go:build unix

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	runagent "github.com/magi-code/magi-code/runner/agent"
)

// terminalMeta is the _meta of a tool call frame under Zed's terminal
// extension.
type terminalMeta struct {
	Info *struct {
		TerminalID string `json:"terminal_id"`
	} `json:"terminal_info"`
	Output *struct {
		TerminalID string `json:"terminal_id"`
		Data       string `json:"data"`
	} `json:"terminal_output"`
	Exit *struct {
		TerminalID string  `json:"terminal_id"`
		ExitCode   *int    `json:"exit_code"`
		Signal     *string `json:"signal"`
	} `json:"terminal_exit"`
}

// TestTerminalOutput: with Zed's _meta.terminal_output advertised, a
// command's output goes live (the command waits for a file the test
// creates only once the first line came through the terminal) to the
// call's display-only terminal, redacted, bounded (cut with the marker
// past 64 KiB, every frame within the bound), and the last update says
// how it exited; the model still gets its own result.
func TestTerminalOutput(t *testing.T) {
	cmd := "echo first-line; while [ ! -e gate ]; do sleep 0.05; done; echo " + secret + "; head -c 200000 /dev/zero | tr '\\0' y; exit 4"
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{
		response(shell(cmd)), response(text("done")),
	}})
	gate := filepath.Join(ws.Cwd, "gate")
	a := start(t, ws)
	r, _ := a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{
		"terminal": true, "_meta": map[string]any{"terminal_output": true}}})
	if r.Error != nil {
		t.Fatalf("initialize: %s", r.raw)
	}
	sid := a.newSession()

	var data strings.Builder
	var metas []terminalMeta
	var ids []string
	resp, _ := a.until(a.prompt(sid, "go"), func(f frame) {
		switch f.Method {
		case "session/request_permission":
			a.respond(f.ID, selected("allow_once"))
			return
		case "session/update":
		default:
			return
		}
		var u struct {
			Update struct {
				Kind       string          `json:"sessionUpdate"`
				ToolCallID string          `json:"toolCallId"`
				Content    json.RawMessage `json:"content"`
				Meta       terminalMeta    `json:"_meta"`
			} `json:"update"`
		}
		if json.Unmarshal(f.Params, &u) != nil || !strings.HasPrefix(u.Update.Kind, "tool_call") {
			return
		}
		metas, ids = append(metas, u.Update.Meta), append(ids, u.Update.ToolCallID)
		if o := u.Update.Meta.Output; o != nil {
			if data.Len() == 0 {
				if err := os.WriteFile(gate, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data.WriteString(o.Data)
		}
	})
	if stopReason(t, resp) != "end_turn" {
		t.Fatalf("prompt: %s", resp.raw)
	}
	id := ids[0]
	if metas[0].Info == nil || metas[0].Info.TerminalID != id {
		t.Fatalf("the tool_call has no terminal_info for %s", id)
	}
	last := metas[len(metas)-1]
	if last.Exit == nil || last.Exit.TerminalID != id || last.Exit.ExitCode == nil || *last.Exit.ExitCode != 4 || last.Exit.Signal != nil {
		t.Fatalf("last update's terminal_exit: %+v", last.Exit)
	}
	got := data.String()
	want := "first-line\n[REDACTED]\n" + strings.Repeat("y", runagent.LiveOutputBytes-len("first-line\n[REDACTED]\n")) + runagent.LiveOutputCutMarker
	if got != want {
		t.Fatalf("terminal output: %d bytes, starts %.60q, ends %.80q", len(got), got, got[max(0, len(got)-80):])
	}
	a.wantExit(0)
}

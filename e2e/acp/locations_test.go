//go:build unix

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// callLocations is each tool call's last locations, by tool kind, in the
// order the calls started.
func callLocations(t testing.TB, frames []frame) map[string][]map[string]any {
	t.Helper()
	last := map[string][]map[string]any{}
	kinds := map[string]string{}
	for _, f := range frames {
		if f.Method != "session/update" {
			continue
		}
		var p struct {
			Update struct {
				Kind       string           `json:"sessionUpdate"`
				ToolCallID string           `json:"toolCallId"`
				ToolKind   string           `json:"kind"`
				Locations  []map[string]any `json:"locations"`
			} `json:"update"`
		}
		if err := json.Unmarshal(f.Params, &p); err != nil {
			t.Fatal(err)
		}
		u := p.Update
		if u.Kind != "tool_call" && u.Kind != "tool_call_update" {
			continue
		}
		if u.Kind == "tool_call" {
			kinds[u.ToolCallID] = u.ToolKind
		}
		if u.Locations != nil {
			last[kinds[u.ToolCallID]] = u.Locations
		}
	}
	return last
}

// TestToolLocationLines: a read_file call's location is the file's
// absolute path at line 1 (it reads from the start), live and on
// session/load; an edit_file call's final location is the first line the
// edit changed (here line 3 of 4: the lines old and new share are not
// changes). The replay carries the read's line only: history keeps no
// edit's line.
func TestToolLocationLines(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "auto", Responses: [][]clienttest.Step{
		response(clienttest.ToolCall("read_file", map[string]any{"path": "f.txt"})),
		response(clienttest.ToolCall("edit_file", map[string]any{"path": "f.txt", "old": "two\nthree", "new": "two\nTHREE"})),
		response(text("done")),
	}})
	path := filepath.Join(ws.Cwd, "f.txt")
	ws.WriteFile(t, path, "one\ntwo\nthree\nfour\n")
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	// The client's file system: the files on disk.
	resp, live := a.until(a.prompt(sid, "go"), diskEditor(t, a, nil))
	if stopReason(t, resp) != "end_turn" {
		t.Fatal(resp.raw)
	}
	want := func(what string, got []map[string]any, line float64) {
		t.Helper()
		l, has := any(nil), false
		if len(got) == 1 {
			l, has = got[0]["line"]
		}
		if len(got) != 1 || got[0]["path"] != path || has != (line > 0) || (has && l != line) {
			t.Errorf("%s: locations %v, want %s at line %v", what, got, path, line)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "one\ntwo\nTHREE\nfour\n" {
		t.Errorf("edited file %q", b)
	}
	locs := callLocations(t, live)
	want("live read", locs["read"], 1)
	want("live edit", locs["edit"], 3)

	if r, _ := a.call("session/close", map[string]any{"sessionId": sid}); r.Error != nil {
		t.Fatalf("close: %s", r.raw)
	}
	r, replay := a.call("session/load", map[string]any{"sessionId": sid, "cwd": ws.Cwd, "mcpServers": []any{}})
	if r.Error != nil {
		t.Fatalf("load: %s", r.raw)
	}
	locs = callLocations(t, replay)
	want("replayed read", locs["read"], 1)
	want("replayed edit", locs["edit"], 0)
}

package runner

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestHistoryDetailCapabilities reads one session (a turn with a tool call
// whose output holds a secret, and two responses that report usage) through
// serve --stdio under each set of optional capabilities, every frame
// checked against protocol/schema.json: a version 1 client sees only
// version 1's kinds and fields; activity.output adds the call's output,
// redacted, right after its activity entry; usage adds one usage entry for
// the turn, its sums and the last response's context, with the window from
// the catalog.
func TestHistoryDetailCapabilities(t *testing.T) {
	t.Parallel()
	const secret = "ghp_" + "Zq8Xw3Lm9Vt2Rk7Np4Hs6Jd1Fb5Gc0Ya8Ue3"
	ws := clienttest.NewWorkspace(t, "")
	usage := func(in, out, cached int) clienttest.Step {
		return clienttest.Step{"usage": map[string]any{"input_tokens": in, "output_tokens": out, "cached_input_tokens": cached}}
	}
	settings := "provider = \"fixture\"\nmodel = \"gpt-5.4\"\n" + clienttest.WriteScript(t, filepath.Join(ws.Home, "script.json"),
		clienttest.Response(clienttest.Text("reading"), clienttest.ToolCall("read_file", map[string]any{"path": "notes.txt"}), usage(1200, 30, 1024)),
		clienttest.Response(clienttest.Text("done"), usage(1290, 4, 0)))
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), settings)
	ws.WriteFile(t, filepath.Join(ws.Cwd, "notes.txt"), "first line\ntoken = "+secret+"\nlast line\n")
	ch := startChild(t, ws, client.Options{Env: ws.Env()})
	sid := ch.Create().SessionID
	ch.Turn(sid, "read the notes").WantOutcome(t, "completed", "")
	ch.Shutdown()

	read := func(extra ...string) []map[string]any {
		t.Helper()
		c := &child{ws.Spawn(t, client.Options{Env: ws.Env()})}
		c.Result("initialize", map[string]any{"required_capabilities": append(slices.Clone(clienttest.AllCapabilities), extra...)}, nil)
		rev := c.Open(sid).Revision
		var out []map[string]any
		var cursor any
		for {
			var p struct {
				Entries []map[string]any `json:"entries"`
				Next    *string          `json:"next_cursor"`
			}
			r := c.Result("history.page", map[string]any{"session_id": sid, "revision": rev, "cursor": cursor}, &p)
			if strings.Contains(string(r.Result), secret[:12]) {
				t.Fatalf("a page holds the secret: %s", r.Result)
			}
			out = append(out, p.Entries...)
			if p.Next == nil {
				break
			}
			cursor = *p.Next
		}
		c.Shutdown()
		return out
	}
	kinds := func(entries []map[string]any) string {
		var k []string
		for _, e := range entries {
			k = append(k, e["kind"].(string))
		}
		return strings.Join(k, " ")
	}

	v1 := read()
	if got := kinds(v1); got != "user assistant activity assistant" {
		t.Fatalf("version 1 kinds %q", got)
	}
	for _, e := range v1 {
		if len(e) != 6 {
			t.Fatalf("version 1 entry with other fields: %v", e)
		}
	}

	out := read(protocol.CapabilityActivityOutput)
	if got := kinds(out); got != "user assistant activity activity_output assistant" {
		t.Fatalf("activity.output kinds %q", got)
	}
	text := out[3]["text"].(string)
	if !strings.HasPrefix(text, "first line\n") || !strings.Contains(text, "last line") || !strings.Contains(text, "[REDACTED]") || out[3]["partial"] != false {
		t.Fatalf("output entry %v", out[3])
	}

	u := read(protocol.CapabilityUsage)
	if got := kinds(u); got != "user assistant activity assistant usage" {
		t.Fatalf("usage kinds %q", got)
	}
	var got map[string]any
	for _, e := range u {
		if e["kind"] == "usage" {
			got = e
		}
	}
	b, _ := json.Marshal(got)
	want := map[string]float64{"input_tokens": 2490, "output_tokens": 34, "cached_input_tokens": 1024, "reasoning_tokens": 0,
		"context_tokens": 1294, "context_window": 1_050_000}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("usage entry %s; want %v", b, want)
		}
	}
}

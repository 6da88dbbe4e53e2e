package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestUsageCapability runs a tool-using turn whose two responses report
// token usage, through serve --stdio, twice: a client that requires the
// optional usage capability sees it advertised and gets one usage event
// per response (every frame checked against protocol/schema.json, the
// context window from the catalog); a client that does not sees exactly
// version 1 (the nine capabilities, no usage event: its strict reader
// would fail on one). Both sessions hold the usage records, and history
// reads them back unchanged after a reopen (its usage entry only to the
// client that required usage).
func TestUsageCapability(t *testing.T) {
	t.Parallel()
	usage := func(in, out, cached int) clienttest.Step {
		return clienttest.Step{"usage": map[string]any{"input_tokens": in, "output_tokens": out, "cached_input_tokens": cached}}
	}
	for _, required := range []bool{true, false} {
		ws := clienttest.NewWorkspace(t, "")
		settings := "provider = \"fixture\"\nmodel = \"gpt-5.4\"\n" + clienttest.WriteScript(t, filepath.Join(ws.Home, "script.json"),
			clienttest.Response(clienttest.Text("listing"), clienttest.ToolCall("list_dir", map[string]any{"path": "."}), usage(1200, 30, 1024)),
			clienttest.Response(clienttest.Text("done"), usage(1290, 4, 0)))
		ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), settings)
		ch := &child{ws.Spawn(t, client.Options{Env: ws.Env()})}
		caps := slices.Clone(clienttest.AllCapabilities)
		if required {
			caps = append(caps, protocol.CapabilityUsage)
		}
		var init struct {
			Capabilities []string `json:"capabilities"`
		}
		ch.Result("initialize", map[string]any{"required_capabilities": caps}, &init)
		if got := slices.Contains(init.Capabilities, protocol.CapabilityUsage); got != required || len(init.Capabilities) != 9+len(caps)-len(clienttest.AllCapabilities) {
			t.Fatalf("required %v: capabilities %q", required, init.Capabilities)
		}
		sid := ch.Create().SessionID
		r := ch.Turn(sid, "list")
		r.WantOutcome(t, "completed", "")
		var events []map[string]any
		for _, e := range r.Events {
			if e.Name == protocol.EventUsage {
				var d map[string]any
				if err := json.Unmarshal(e.Data, &d); err != nil {
					t.Fatal(err)
				}
				events = append(events, d)
			}
		}
		if !required {
			if len(events) != 0 {
				t.Fatalf("usage events without the capability: %v", events)
			}
		} else if len(events) != 2 || events[0]["input_tokens"] != 1200.0 || events[0]["cached_input_tokens"] != 1024.0 ||
			events[1]["output_tokens"] != 4.0 || events[0]["context_window"] != 1_050_000.0 || events[1]["reasoning_tokens"] != 0.0 {
			t.Fatalf("usage events %v", events)
		}
		before := ch.history(sid, r)
		ch.Shutdown()

		data, err := os.ReadFile(filepath.Join(ws.Home, "sessions", sid+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), `"type":"usage"`); n != 2 || !strings.Contains(string(data), `"model":"gpt-5.4"`) {
			t.Fatalf("%d usage records in the session:\n%s", n, data)
		}
		ch = startChild(t, ws, client.Options{Env: ws.Env()})
		after, _, _ := ch.History(sid, ch.Open(sid).Revision)
		// The reopening client is version 1: the usage entry (the usage
		// capability) is not in its pages.
		if required {
			n := len(before)
			before = slices.DeleteFunc(before, func(e entry) bool { return e.Kind == "usage" })
			if n != len(before)+1 {
				t.Fatalf("%d usage entries in the history; want 1", n-len(before))
			}
		}
		if !reflect.DeepEqual(after, before) || len(before) == 0 {
			t.Fatalf("history after reopening %+v; before %+v", after, before)
		}
		ch.Shutdown()
	}
}

// TestCompactionUsageCounted: with a small context window some turn
// compacts; the compaction's summary request reports its usage like the
// turn's own responses, as a usage event of source compaction (the turn's
// own say turn), and the session holds it as a side_usage record of kind
// compaction, so the session's token counts include it.
func TestCompactionUsageCounted(t *testing.T) {
	t.Parallel()
	var script [][]clienttest.Step
	for k := range 10 {
		script = append(script, clienttest.Response(clienttest.Text(fmt.Sprintf("reply %d ", k)+strings.Repeat("w", 2000)),
			clienttest.Step{"usage": map[string]any{"input_tokens": 100 + k, "output_tokens": 10}}))
	}
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Top: "context_window = 2000", Responses: script})
	ch := &child{ws.Spawn(t, client.Options{Env: ws.Env()})}
	ch.Result("initialize", map[string]any{"required_capabilities": append(slices.Clone(clienttest.AllCapabilities), protocol.CapabilityUsage)}, nil)
	sid := ch.Create().SessionID
	sources := map[string]int{}
	for turn := 0; turn < 8 && sources["compaction"] == 0; turn++ {
		r := ch.Turn(sid, fmt.Sprintf("prompt %d", turn))
		for _, e := range r.Events {
			if e.Name == protocol.EventUsage {
				var d struct {
					Source string `json:"source"`
				}
				if err := json.Unmarshal(e.Data, &d); err != nil {
					t.Fatal(err)
				}
				sources[d.Source]++
			}
		}
	}
	ch.Shutdown()
	if sources["compaction"] != 1 || sources["turn"] == 0 || len(sources) != 2 {
		t.Fatalf("usage events by source %v; want turn and one compaction", sources)
	}
	data, err := os.ReadFile(filepath.Join(ws.Home, "sessions", sid+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `{"type":"side_usage"`); n != 1 || !strings.Contains(string(data), `"kind":"compaction"`) ||
		strings.Count(string(data), `{"type":"usage"`) != sources["turn"] {
		t.Fatalf("%d side_usage records:\n%s", n, data)
	}
}

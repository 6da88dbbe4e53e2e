package runner

import (
	"slices"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestCompactCapability: through serve --stdio, a client that requires
// compact sends "/compact keep names": the conversation is compacted now
// (a compaction activity, started then completed; no input.persisted: the
// command is not stored), the run completes, and history shows the
// compaction where the command would be. "/compactor" is a prompt. A
// client that does not require the capability sends "/compact" to the
// model like any prompt.
func TestCompactCapability(t *testing.T) {
	t.Parallel()
	for _, required := range []bool{true, false} {
		ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
			clienttest.Response(text("first reply")),
			clienttest.Response(text("SUMMARY-OF-IT")),
			clienttest.Response(text("after")),
		}})
		ch := &child{ws.Spawn(t, client.Options{Env: ws.Env()})}
		caps := slices.Clone(clienttest.AllCapabilities)
		if required {
			caps = append(caps, protocol.CapabilityCompact)
		}
		ch.Result("initialize", map[string]any{"required_capabilities": caps}, nil)
		sid := ch.Create().SessionID
		ch.Turn(sid, "hello").WantOutcome(t, "completed", "")
		r := ch.Turn(sid, "  /compact keep names")
		r.WantOutcome(t, "completed", "")
		compacted := false
		for _, e := range r.Events {
			if d, _ := e.Fields(); e.Name == protocol.EventActivity && d.Kind == "compaction" && d.State == "completed" {
				compacted = true
			}
		}
		persisted := r.Count(protocol.EventInputPersisted)
		if required && (!compacted || persisted != 0 || r.Reply() != "") {
			t.Fatalf("required: compacted %v, input.persisted %d, reply %q", compacted, persisted, r.Reply())
		}
		if !required && (compacted || persisted != 1 || r.Reply() != "SUMMARY-OF-IT") {
			t.Fatalf("not required: compacted %v, input.persisted %d, reply %q", compacted, persisted, r.Reply())
		}
		r = ch.Turn(sid, "/compactor")
		if r.Count(protocol.EventInputPersisted) != 1 || r.Reply() != "after" {
			t.Fatalf("/compactor: %q", r.Reply())
		}
		entries, _, _ := ch.History(sid, ch.Open(sid).Revision)
		kinds := clienttest.Kinds(entries)
		if required != slices.Contains(kinds, "compaction") {
			t.Fatalf("history kinds %v", kinds)
		}
		ch.Shutdown()
	}
}

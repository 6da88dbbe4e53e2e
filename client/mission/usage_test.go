package mission

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client"
)

// Usage events add up: the status bar shows the context left of the
// window (or used, when the window is unknown); /status shows the
// selection, approval mode, sandbox, session and tokens in and out.
func TestUsageAndStatus(t *testing.T) {
	m, _, _ := sized(t, 80, 24, Options{ApprovalMode: func() string { return "ask" }})
	m.Update(result(0, "status", `{"state":"running","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"c","session_id":"`+sess+`","run_id":null,"sandbox":"workspace-write"}`))
	if v := view(m); strings.Contains(v, "context") {
		t.Fatalf("context shown before any count:\n%s", v)
	}
	// A subagent's response costs tokens but says nothing of the context.
	send(m, "usage", map[string]any{"input_tokens": 5000, "output_tokens": 500, "cached_input_tokens": 0, "reasoning_tokens": 0, "context_window": 128000, "source": "subagent"})
	if v := view(m); strings.Contains(v, "context") {
		t.Fatalf("context shown from a subagent's count:\n%s", v)
	}
	send(m, "usage", map[string]any{"input_tokens": 30000, "output_tokens": 2000, "cached_input_tokens": 1000, "reasoning_tokens": 0, "context_window": 128000, "source": "turn"})
	send(m, "usage", map[string]any{"input_tokens": 40000, "output_tokens": 8000, "cached_input_tokens": 0, "reasoning_tokens": 0, "context_window": 128000, "source": "turn"})
	send(m, "usage", map[string]any{"input_tokens": 60000, "output_tokens": 1500, "cached_input_tokens": 0, "reasoning_tokens": 0, "context_window": 128000, "source": "compaction"})
	if v := view(m); !strings.Contains(v, "63% context left") {
		t.Fatalf("status bar:\n%s", v)
	}
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
	typeLine(m, "/status")
	p := printed(m)
	for _, want := range []string{"provider       fixture", "model          fixture-model", "approval mode  ask", "sandbox        workspace-write", "session        " + sess, "tokens in      135.0k (1.0k from the provider's cache)", "tokens out     12.0k", "context        48.0k of 128.0k (63% context left)"} {
		if !strings.Contains(p, want) {
			t.Fatalf("/status lacks %q:\n%s", want, p)
		}
	}
	// A local model: no window.
	m.usage.add([]byte(`{"input_tokens":1500,"output_tokens":10,"context_window":null,"source":"turn"}`))
	if v := view(m); !strings.Contains(v, "1.5k context") {
		t.Fatalf("status bar without a window:\n%s", v)
	}
	// Nonsense is ignored.
	before := m.usage
	m.usage.add([]byte(`{"input_tokens":-5}`))
	m.usage.add([]byte(`not json`))
	if m.usage != before {
		t.Fatal("a bad usage event changed the counts")
	}
}

// initialize requires the usage capability: without it the backend sends
// no usage event.
func TestInitializeRequiresUsage(t *testing.T) {
	m := New(Options{Backend: &fakeBackend{}})
	fb := m.backend.(*fakeBackend)
	m.initialize()()
	caps, _ := fb.params[0].(map[string]any)["required_capabilities"].([]string)
	if !strings.Contains(strings.Join(caps, " "), "usage") {
		t.Fatalf("required_capabilities %v lack usage", caps)
	}
}

// The bell rings when an approval waits, and when a turn of 10 s or more
// ends; not for a short turn.
func TestBell(t *testing.T) {
	rings := func(cmd tea.Cmd) bool {
		for _, msg := range msgs(cmd) {
			if r, ok := msg.(tea.RawMsg); ok && r.Msg == "\a" {
				return true
			}
		}
		return false
	}
	finish := func(m *Model) tea.Cmd {
		b, _ := json.Marshal(map[string]any{"session_id": sess, "run_id": run, "outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
		return m.event(client.Event{Name: "run.finished", SessionID: sess, RunID: run, Data: b})
	}
	m, _, clk := started(t, Options{})
	b, _ := json.Marshal(map[string]any{"session_id": sess, "run_id": run, "approval_id": "ap1", "summary": "shell: make", "expires_in_ms": 60000})
	if !rings(m.event(client.Event{Name: "approval.requested", SessionID: sess, RunID: run, Data: b})) {
		t.Fatal("no bell for an approval")
	}
	clk.t = clk.t.Add(9 * time.Second)
	if rings(finish(m)) {
		t.Fatal("a bell for a 9 s turn")
	}
	m, _, clk = started(t, Options{})
	clk.t = clk.t.Add(10 * time.Second)
	if !rings(finish(m)) {
		t.Fatal("no bell for a 10 s turn")
	}
}

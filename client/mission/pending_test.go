package mission

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client"
)

// enter types s, presses Enter and runs what that does; it returns the
// protocol calls made.
func enter(m *Model, fb *fakeBackend, s string) []string {
	before := len(fb.calls)
	msgs(typeLine(m, s))
	return fb.calls[before:]
}

func newModel(t *testing.T) (*Model, *fakeBackend) {
	t.Helper()
	fb := &fakeBackend{events: make(chan client.Event)}
	clk := &clock{t: time.Unix(1_000_000, 0)}
	return New(Options{Backend: fb, Now: clk.now}), fb
}

// update applies msg and returns its command.
func update(m *Model, msg any) tea.Cmd {
	_, cmd := m.Update(msg)
	return cmd
}

// A prompt entered while the backend starts or the session attaches (a
// user who types at once) is started once the session is open, not lost.
func TestPromptTypedBeforeTheSessionStartsOnceAttached(t *testing.T) {
	for _, when := range []string{"before initialize answers", "while the session attaches"} {
		t.Run(when, func(t *testing.T) {
			m, fb := newModel(t)
			if when == "while the session attaches" {
				m.Update(callMsg{method: "initialize", resp: &client.Response{Result: json.RawMessage(`{"status":{"readiness":"ready","provider":"fixture","model":"fixture-model"}}`)}})
			}
			if calls := enter(m, fb, "run the tool"); len(calls) != 0 {
				t.Fatalf("Enter before the session sent %v; want nothing yet", calls)
			}
			if !strings.Contains(printed(m), "run the tool") {
				t.Fatalf("the prompt is not on the screen:\n%s", printed(m))
			}
			if when == "before initialize answers" {
				m.Update(callMsg{method: "initialize", resp: &client.Response{Result: json.RawMessage(`{"status":{"readiness":"ready","provider":"fixture","model":"fixture-model"}}`)}})
			}
			msgs(update(m, callMsg{method: "session.create", resp: &client.Response{Result: json.RawMessage(`{"session_id":"` + sess + `","revision":"r1","durable":false,"notices":[]}`)}}))
			var sent map[string]string
			for i, c := range fb.calls {
				if c == "turn.start" {
					sent = fb.params[i].(map[string]string)
				}
			}
			if sent == nil || sent["prompt"] != "run the tool" || sent["session_id"] != sess {
				t.Fatalf("calls %v; want turn.start of the typed prompt in the new session", fb.calls)
			}
			if !m.running {
				t.Fatal("the pending prompt's turn is not running")
			}
		})
	}
}

// A backend that is not ready drops the pending prompt and says so.
func TestPendingPromptDroppedWhenNotReady(t *testing.T) {
	m, fb := newModel(t)
	enter(m, fb, "hello")
	code := "provider_unavailable"
	msgs(update(m, callMsg{method: "initialize", resp: &client.Response{Error: &client.Error{Code: code}}}))
	if !strings.Contains(printed(m), "not sent") {
		t.Fatalf("no word of the dropped prompt:\n%s", printed(m))
	}
	for _, c := range fb.calls {
		if c == "turn.start" {
			t.Fatalf("calls %v: a turn started on a backend that is not ready", fb.calls)
		}
	}
	if calls := enter(m, fb, "again"); len(calls) != 0 || !strings.Contains(printed(m), "not ready: no usable credential") || strings.Contains(printed(m), code) {
		t.Fatalf("Enter after the failure sent %v; screen:\n%s", calls, printed(m))
	}
}

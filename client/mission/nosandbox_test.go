package mission

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client"
)

// The status bar and every approval say "no sandbox" when the backend's
// status says nothing confines its commands (unavailable or off), from
// initialize's status and from a later status; never when a sandbox is in
// force or the field is absent (an older backend). At 30 columns the
// words stay on the status bar, whatever else it drops.
func TestNoSandboxShown(t *testing.T) {
	const note = "no OS sandbox: commands you allow run with all your permissions"
	for _, c := range []struct {
		sandbox string // "" leaves the field out
		later   string // a status answered after initialize, when not ""
		want    bool
	}{
		{"unavailable", "", true}, {"off", "", true}, {"workspace-write", "", false}, {"", "", false},
		{"workspace-write", "unavailable", true}, {"unavailable", "workspace-write", false},
	} {
		for _, cols := range []int{80, 30} {
			fb := &fakeBackend{events: make(chan client.Event)}
			clk := &clock{t: time.Unix(1_000_000, 0)}
			m := New(Options{Backend: fb, Now: clk.now})
			m.Update(tea.WindowSizeMsg{Width: cols, Height: 24})
			m.Update(drawnMsg{})
			st := map[string]any{"readiness": "ready", "provider": "fixture", "model": "fixture-model"}
			if c.sandbox != "" {
				st["sandbox"] = c.sandbox
			}
			b, _ := json.Marshal(map[string]any{"status": st})
			m.Update(callMsg{method: "initialize", resp: &client.Response{Result: b}})
			m.Update(callMsg{method: "session.create", resp: &client.Response{Result: json.RawMessage(`{"session_id":"` + sess + `","revision":"r1","durable":false,"notices":[]}`)}})
			if c.later != "" {
				m.Update(result(0, "status", `{"state":"idle","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"c","session_id":null,"run_id":null,"sandbox":"`+c.later+`"}`))
			}
			m.startTurn("hello there")
			m.Update(callMsg{method: "turn.start", resp: &client.Response{Result: json.RawMessage(`{"run_id":"` + run + `","accepted":true}`)}})
			bar := m.statusLine()
			if got := strings.Contains(bar, "no sandbox"); got != c.want {
				t.Errorf("%+v at %d columns: status bar %q; want no sandbox %v", c, cols, bar, c.want)
			}
			send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": "shell: make", "expires_in_ms": 60000})
			if got := strings.Contains(strings.Join(strings.Fields(view(m)), " "), note); got != c.want {
				t.Errorf("%+v at %d columns: the approval says no sandbox: %v; want %v:\n%s", c, cols, got, c.want, view(m))
			}
		}
	}
}

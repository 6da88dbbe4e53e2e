package mission

import (
	"encoding/json"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client"
)

// TestNotifier: OSC 9 on the terminals that show it, unless a multiplexer
// is in between; the bell everywhere else.
func TestNotifier(t *testing.T) {
	const osc = "\x1b]9;hi\a"
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TERM": "xterm-256color"}, "\a"},
		{map[string]string{}, "\a"},
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, osc},
		{map[string]string{"TERM_PROGRAM": "WezTerm"}, osc},
		{map[string]string{"TERM_PROGRAM": "ghostty"}, osc},
		{map[string]string{"TERM": "xterm-kitty"}, osc},
		{map[string]string{"TERM_PROGRAM": "Apple_Terminal"}, "\a"},
		{map[string]string{"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/tmux-0/default,1,0"}, "\a"},
		{map[string]string{"TERM": "xterm-kitty", "STY": "1.pts-0"}, "\a"},
	} {
		if got := Notifier(func(k string) string { return c.env[k] })("hi"); got != c.want {
			t.Errorf("%v: %q; want %q", c.env, got, c.want)
		}
	}
}

// TestNotifyTexts: the approval and a long turn's end notify with the
// app's fixed words, whatever the backend's outcome says.
func TestNotifyTexts(t *testing.T) {
	var got []string
	opts := Options{Notify: func(text string) string { got = append(got, text); return "\x1b]9;" + text + "\a" }}
	m, _, clk := started(t, opts)
	b, _ := json.Marshal(map[string]any{"session_id": sess, "run_id": run, "approval_id": "ap1", "summary": "shell: make", "expires_in_ms": 60000})
	raws := func(cmd tea.Cmd) (n int) {
		for _, msg := range msgs(cmd) {
			if r, ok := msg.(tea.RawMsg); ok && r.Msg == "\x1b]9;"+got[len(got)-1]+"\a" {
				n++
			}
		}
		return n
	}
	if raws(m.event(client.Event{Name: "approval.requested", SessionID: sess, RunID: run, Data: b})) != 1 {
		t.Fatal("the approval did not notify")
	}
	clk.t = clk.t.Add(bellAfter)
	b, _ = json.Marshal(map[string]any{"session_id": sess, "run_id": run, "outcome": "failed", "persistence": "durable", "revision": "r2", "error_code": "execution_failed"})
	if raws(m.event(client.Event{Name: "run.finished", SessionID: sess, RunID: run, Data: b})) != 1 {
		t.Fatal("the long turn's end did not notify")
	}
	if len(got) != 2 || got[0] != "magi-code: an approval waits" || got[1] != "magi-code: turn failed" {
		t.Fatalf("texts %q", got)
	}
	if finishedText("completed\x1b]0;x\a") != "magi-code: turn failed" || finishedText("cancelled") != "magi-code: turn cancelled" {
		t.Fatal("an outcome's text is not one of the fixed words")
	}
}

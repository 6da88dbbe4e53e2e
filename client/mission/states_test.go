package mission

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client"
)

// A prompt typed after the session failed to open is refused in words
// and stays in the input; once /new opened one, it goes.
func TestPromptAfterAFailedOpen(t *testing.T) {
	fb := &fakeBackend{events: make(chan client.Event)}
	m := New(Options{Backend: fb, Resume: sess})
	m.Update(result(0, "initialize", readyStatus))
	m.Update(failure(0, "session.open", "session_invalid"))
	typeLine(m, "hello")
	if m.running || m.pending != "" || m.input.Value() != "hello" || !strings.Contains(printed(m), "not sent: no session is open") {
		t.Fatalf("running %v pending %q input %q\n%s", m.running, m.pending, m.input.Value(), printed(m))
	}
	m.input.Reset()
	typeLine(m, "/new")
	m.Update(result(0, "session.create", `{"session_id":"`+sess+`","revision":"r1","durable":false,"notices":[]}`))
	typeLine(m, "hello")
	if !m.running {
		t.Fatal("no turn once a session is open")
	}
}

// Each key in each state: idle, idle with the / menu open, streaming,
// streaming with the menu open, approving, cancelling.
func TestKeysAcrossStates(t *testing.T) {
	idle := func(t *testing.T) (*Model, *fakeBackend, *clock) {
		m, fb, clk := sized(t, 80, 24, Options{})
		send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r2", "error_code": nil})
		return m, fb, clk
	}
	withMenu := func(setup func(t *testing.T) (*Model, *fakeBackend, *clock)) func(t *testing.T) (*Model, *fakeBackend, *clock) {
		return func(t *testing.T) (*Model, *fakeBackend, *clock) {
			m, fb, clk := setup(t)
			key(m, "/")
			if len(m.menu()) == 0 {
				t.Fatal("no menu")
			}
			clk.t = clk.t.Add(time.Second)
			return m, fb, clk
		}
	}
	streaming := func(t *testing.T) (*Model, *fakeBackend, *clock) {
		m, fb, clk := sized(t, 80, 24, Options{})
		send(m, "message.delta", map[string]any{"message_id": "m1", "part": 0, "text": "streaming text"})
		return m, fb, clk
	}
	approving := func(t *testing.T) (*Model, *fakeBackend, *clock) {
		m, fb, clk := streaming(t)
		send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": "shell: make", "expires_in_ms": 60000})
		clk.t = clk.t.Add(2 * time.Second)
		return m, fb, clk
	}
	cancelling := func(t *testing.T) (*Model, *fakeBackend, *clock) {
		m, fb, clk := streaming(t)
		key(m, "ctrl+c")
		if !m.cancelling {
			t.Fatal("not cancelling")
		}
		return m, fb, clk
	}
	states := map[string]func(t *testing.T) (*Model, *fakeBackend, *clock){
		"idle": idle, "idle+menu": withMenu(idle), "streaming": streaming, "streaming+menu": withMenu(streaming),
		"approving": approving, "cancelling": cancelling,
	}
	// what each key does in each state, as a word: quit, armed, cancel,
	// allow, deny, draft (the key went to the input), menu-closed,
	// choice (the approval's highlight moved), none.
	want := map[string]map[string]string{
		"esc":    {"idle": "none", "idle+menu": "menu-closed", "streaming": "cancel", "streaming+menu": "menu-closed", "approving": "cancel", "cancelling": "none"},
		"ctrl+c": {"idle": "armed", "idle+menu": "cleared", "streaming": "cancel", "streaming+menu": "cancel", "approving": "cancel", "cancelling": "quit"},
		"y":      {"idle": "draft", "idle+menu": "draft", "streaming": "draft", "streaming+menu": "draft", "approving": "allow", "cancelling": "draft"},
		"n":      {"idle": "draft", "idle+menu": "draft", "streaming": "draft", "streaming+menu": "draft", "approving": "deny", "cancelling": "draft"},
		"enter":  {"idle": "none", "idle+menu": "command", "streaming": "none", "streaming+menu": "command", "approving": "deny", "cancelling": "none"},
		"down":   {"idle": "none", "idle+menu": "menu-moved", "streaming": "none", "streaming+menu": "menu-moved", "approving": "choice", "cancelling": "none"},
	}
	for k, byState := range want {
		for s, w := range byState {
			t.Run(k+" in "+s, func(t *testing.T) {
				m, fb, _ := states[s](t)
				before := m.input.Value()
				printedBefore := len(m.Printed)
				approval := m.approval
				sel := m.menuSel
				cmd := key(m, k)
				if cmd != nil && !m.quitting {
					msgs(cmd)
				}
				got := "none"
				switch {
				case m.quitting:
					got = "quit"
				case m.quitArmed:
					got = "armed"
				case approval != nil && m.approval == nil && answered(fb):
					got = map[bool]string{true: "allow", false: "deny"}[lastAllow(fb)]
				case m.cancelling && (s != "cancelling") && called(fb, "turn.cancel"):
					got = "cancel"
				case approval != nil && m.approval != nil && m.approval.allow:
					got = "choice"
				case m.input.Value() == before+k && len(k) == 1:
					got = "draft"
				case before != "" && m.input.Value() == "":
					if len(m.Printed) > printedBefore {
						got = "command"
					} else {
						got = "cleared"
					}
				case m.menuClosed && len(m.menu()) == 0:
					got = "menu-closed"
				case m.menuSel != sel:
					got = "menu-moved"
				}
				if got != w {
					t.Fatalf("%s in %s: %s; want %s (input %q)\n%s", k, s, got, w, m.input.Value(), view(m))
				}
				if s == "streaming+menu" && k == "esc" && m.cancelling {
					t.Fatal("Esc with the menu open cancelled the turn")
				}
			})
		}
	}
}

func called(fb *fakeBackend, method string) bool {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	for _, c := range fb.calls {
		if c == method {
			return true
		}
	}
	return false
}

// Ctrl-Z suspends the app, in any state.
func TestCtrlZSuspends(t *testing.T) {
	m, _, _ := sized(t, 80, 24, Options{})
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl})
	if cmd == nil {
		t.Fatal("Ctrl-Z did nothing")
	}
	if _, ok := cmd().(tea.SuspendMsg); !ok || m.input.Value() != "" {
		t.Fatalf("Ctrl-Z did not suspend (input %q)", m.input.Value())
	}
}

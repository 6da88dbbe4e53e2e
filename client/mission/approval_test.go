package mission

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

type keyAt struct {
	at     int  // ms from the drawing
	answer bool // an approval key (taken when it may answer)
	want   bool // may answer
}

// burst is keys from..to every gap ms, approval keys all, none may answer.
func burst(from, to, gap int) []keyAt {
	var out []keyAt
	for at := from; at <= to; at += gap {
		out = append(out, keyAt{at, true, false})
	}
	return out
}

// The rule alone: keys at offsets (ms) from the approval's drawing, and
// whether each may answer.
func TestKeyGate(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	pause, grace := int(typingPause/time.Millisecond), int(answerGrace/time.Millisecond)
	for _, c := range []struct {
		name string
		keys []keyAt
	}{
		{"a burst begun before, going on long after", burst(-300, 6000, 300)},
		{"a burst of answer keys begun before", []keyAt{{-50, true, false}, {500, true, false}, {grace + 300, true, false}}},
		{"the pause ends the burst", []keyAt{{-100, false, false}, {400, false, false}, {400 + pause, true, true}}},
		{"a pause just short", []keyAt{{-100, false, false}, {400, false, false}, {400 + pause - 1, true, false}}},
		{"within the grace", []keyAt{{grace - 1, true, false}}},
		{"at the grace", []keyAt{{grace, true, true}}},
		{"a burst begun in the grace", []keyAt{{grace - 100, true, false}, {grace + 100, true, false}, {grace + 400, true, false}}},
		{"a word after the pause", []keyAt{{2000, false, true}, {2100, true, false}, {2200, true, false}}},
		{"choice then Enter", []keyAt{{2000, true, true}, {2100, true, true}}},
		{"no key before", []keyAt{{grace + 1, true, true}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			shown := time.Unix(1_000_000, 0)
			var g keyGate
			for i, p := range c.keys {
				g.press(shown.Add(ms(p.at)))
				got := g.mayAnswer(shown)
				if got != p.want {
					t.Fatalf("key %d at %+dms: may answer %v; want %v", i, p.at, got, p.want)
				}
				if !got || !p.answer {
					g.typed = true
				}
			}
		})
	}
}

// typeAt types s one key every gap, advancing the clock.
func typeAt(m *Model, clk *clock, gap time.Duration, s string) {
	for _, r := range s {
		clk.t = clk.t.Add(gap)
		if r == ' ' {
			key(m, "space")
			continue
		}
		key(m, string(r))
	}
}

// The next prompt typed during a stream, on and on across the approval's
// arrival, answers nothing: its keys, y among them, go to the draft; the
// first key after a pause answers.
func TestTypingBurstNeverAnswers(t *testing.T) {
	m, fb, clk := sized(t, 80, 24, Options{})
	typeAt(m, clk, 120*time.Millisecond, "now tell me why ")
	send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": "shell: touch ~/x", "expires_in_ms": 60000})
	typeAt(m, clk, 120*time.Millisecond, "my yy y yes y n nn Y")
	for i := 0; i < 40; i++ { // five more seconds of it
		typeAt(m, clk, 120*time.Millisecond, "y")
	}
	key(m, "enter")
	if m.approval == nil || answered(fb) {
		t.Fatalf("a key of the burst answered the approval")
	}
	if d := m.input.Value(); !strings.HasPrefix(d, "now tell me why my yy y yes y n nn Y") {
		t.Fatalf("the draft lost the typing: %q", d)
	}
	if v := view(m); !strings.Contains(v, "typing goes to your draft") {
		t.Fatalf("the approval does not say where the keys went:\n%s", v)
	}
	// A paste is typing too.
	clk.t = clk.t.Add(2 * time.Second)
	m.Update(tea.PasteMsg{Content: "y"})
	clk.t = clk.t.Add(100 * time.Millisecond)
	key(m, "y")
	if m.approval == nil || answered(fb) {
		t.Fatal("a key right after a paste answered")
	}
	clk.t = clk.t.Add(typingPause)
	key(m, "n")()
	if m.approval != nil || !answered(fb) || lastAllow(fb) {
		t.Fatalf("n after a pause did not deny")
	}
}

// After a pause, a word typed answers nothing (its first key went to the
// draft); the choice keys and Enter answer; Enter alone denies.
func TestDeliberateChoice(t *testing.T) {
	for _, c := range []struct {
		keys  []string
		allow bool
	}{{[]string{"enter"}, false}, {[]string{"down", "enter"}, true}, {[]string{"tab", "tab", "enter"}, false}, {[]string{"y"}, true}, {[]string{"N"}, false}} {
		m, fb, clk := sized(t, 80, 24, Options{})
		send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": "shell: make", "expires_in_ms": 60000})
		clk.t = clk.t.Add(2 * time.Second)
		typeAt(m, clk, 100*time.Millisecond, "hey you")
		if m.approval == nil {
			t.Fatal("a word after the pause answered")
		}
		clk.t = clk.t.Add(typingPause)
		var cmd tea.Cmd
		for _, k := range c.keys {
			clk.t = clk.t.Add(150 * time.Millisecond)
			cmd = key(m, k)
		}
		if cmd == nil || m.approval != nil {
			t.Fatalf("%v did not answer", c.keys)
		}
		cmd()
		if lastAllow(fb) != c.allow {
			t.Fatalf("%v answered allow=%v", c.keys, !c.allow)
		}
		if m.input.Value() != "hey you" {
			t.Fatalf("draft %q", m.input.Value())
		}
	}
}

func answered(fb *fakeBackend) bool {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	for _, c := range fb.calls {
		if c == "approval.answer" {
			return true
		}
	}
	return false
}

func lastAllow(fb *fakeBackend) bool {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	for i := len(fb.calls) - 1; i >= 0; i-- {
		if fb.calls[i] == "approval.answer" {
			return fb.params[i].(map[string]any)["allow"] == true
		}
	}
	return false
}

func TestCollapseSpaces(t *testing.T) {
	for in, want := range map[string]string{
		"echo a" + strings.Repeat(" ", 1000) + "; touch ~/x":          "echo a ␠×1000 ; touch ~/x",
		"    indented" + strings.Repeat(" ", 15) + "x":                "    indented" + strings.Repeat(" ", 15) + "x",
		strings.Repeat(" ", 16):                                       " ␠×16 ",
		"a" + strings.Repeat(" ", 20) + "b" + strings.Repeat(" ", 17): "a ␠×20 b ␠×17 ",
	} {
		if got := collapseSpaces(in); got != want {
			t.Errorf("collapseSpaces(%q) = %q; want %q", in, got, want)
		}
	}
}

// A long command is shown whole before the answer: its runs of spaces
// collapsed visibly, its size said; at 30 columns too.
func TestLongCommandShownWhole(t *testing.T) {
	summary := "shell: echo harmless" + strings.Repeat(" ", 600) + "; touch ~/x"
	for _, cols := range []int{80, 30} {
		m, _, _ := sized(t, cols, 24, Options{})
		send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": summary, "expires_in_ms": 60000})
		all := strings.Join(strings.Fields(view(m)+"\n"+printed(m)), " ")
		for _, want := range []string{"␠×600 ; touch ~/x", "(631 bytes)"} {
			if !strings.Contains(all, want) {
				t.Fatalf("%d cols: %q not shown:\n%s", cols, want, all)
			}
		}
		if m.approval.cut {
			t.Fatal("a whole request taken as cut")
		}
	}
}

// A request the backend cut at its bound is never allowed by one key:
// it says so; y does nothing; an explicit choice and Enter allow.
func TestCutRequestNeedsAnExplicitChoice(t *testing.T) {
	for _, summary := range []string{
		"shell: echo harmless" + strings.Repeat(" ", 867) + "...",
		"protected: recursive delete: shell: rm -rf a" + strings.Repeat("b", 980),
	} {
		m, fb, clk := sized(t, 30, 24, Options{})
		send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": summary, "expires_in_ms": 60000})
		if !strings.Contains(strings.Join(strings.Fields(view(m)), " "), "the backend cut this request") {
			t.Fatalf("the cut is not said:\n%s", view(m))
		}
		clk.t = clk.t.Add(2 * time.Second)
		key(m, "y")
		if m.approval == nil || answered(fb) {
			t.Fatal("y allowed a cut request")
		}
		clk.t = clk.t.Add(2 * time.Second)
		key(m, "down")
		clk.t = clk.t.Add(100 * time.Millisecond)
		key(m, "enter")()
		if !lastAllow(fb) {
			t.Fatal("the explicit choice did not allow")
		}
	}
	if cutSummary("shell: ls ...") || !cutSummary(strings.Repeat("a", 887)+"...") || cutSummary(strings.Repeat("a", 886)+"...") {
		t.Fatal("cutSummary's bound")
	}
}

// An approval exactly as tall as the live region's row budget stays in
// it, whole; one row more is printed above whole, and the live region
// asks about it; a resize that takes the room away prints it then. On
// narrow and short screens.
func TestApprovalAtTheRowBudget(t *testing.T) {
	summary := func(k int) string {
		var lines []string
		for i := range k {
			lines = append(lines, fmt.Sprintf("step-%02d", i))
		}
		return "shell: " + strings.Join(lines, "\n")
	}
	for _, size := range []struct{ cols, rows int }{{30, 24}, {30, 12}, {80, 8}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			fit, exact := -1, false
			for k := 1; k < 40; k++ {
				m, _, _ := sized(t, size.cols, size.rows, Options{})
				send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": summary(k), "expires_in_ms": 60000})
				lines := checkFits(t, m, size.cols, size.rows)
				if m.approval.printed {
					if fit < 0 {
						t.Fatal("even one line is printed above")
					}
					p := printed(m)
					for i := range k {
						if !strings.Contains(p, fmt.Sprintf("step-%02d", i)) {
							t.Fatalf("one row past the budget (%d lines): step-%02d not printed:\n%s", k, i, p)
						}
					}
					if !strings.Contains(strings.Join(strings.Fields(view(m)), " "), "the request printed above") {
						t.Fatalf("the live region does not point at the printed request:\n%s", view(m))
					}
					if !exact {
						t.Fatalf("no request filled the budget exactly before %d lines", k)
					}
					return
				}
				fit = k
				v := view(m)
				for i := range k {
					if !strings.Contains(v, fmt.Sprintf("step-%02d", i)) {
						t.Fatalf("%d lines fit but step-%02d is not shown:\n%s", k, i, v)
					}
				}
				if len(lines) == size.rows-1 {
					// Exactly at the budget (all but one row of the
					// screen): the next k is one row past it.
					exact = true
					m2, _, _ := sized(t, size.cols, size.rows, Options{})
					send(m2, "approval.requested", map[string]any{"approval_id": "ap1", "summary": summary(k), "expires_in_ms": 60000})
					// A resize that takes one row from the budget.
					h := size.rows - 1
					m2.Update(tea.WindowSizeMsg{Width: size.cols, Height: h})
					if !m2.approval.printed || !strings.Contains(printed(m2), fmt.Sprintf("step-%02d", k-1)) {
						t.Fatalf("a resize to %d rows (one row less of budget) did not print the request above", h)
					}
					checkFits(t, m2, size.cols, h)
				}
			}
			t.Fatal("never past the budget")
		})
	}
}

// lastScope is the scope of the last approval.answer, "" when it had none.
func lastScope(fb *fakeBackend) string {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	for i := len(fb.calls) - 1; i >= 0; i-- {
		if fb.calls[i] == "approval.answer" {
			s, _ := fb.params[i].(map[string]any)["scope"].(string)
			return s
		}
	}
	return ""
}

// a allows the exact command for the session where the backend offers it
// (session_grant), and says so; where it does not (a protected call, a
// call from code), a is typing and answers nothing; on a request the
// backend cut it does nothing; y and n never ask for the session.
func TestSessionGrantKey(t *testing.T) {
	for _, c := range []struct {
		name      string
		grant     bool
		summary   string
		keys      []string
		answered  bool
		allow     bool
		scope     string
		offerShow bool
	}{
		{"a grants", true, "shell: make", []string{"a"}, true, true, "session", true},
		{"A grants", true, "shell: make", []string{"A"}, true, true, "session", true},
		{"y once", true, "shell: make", []string{"y"}, true, true, "", true},
		{"n denies", true, "shell: make", []string{"n"}, true, false, "", true},
		{"not grantable", false, "shell: make", []string{"a"}, false, false, "", false},
		{"cut", true, "shell: " + strings.Repeat("x", 1020), []string{"a"}, false, false, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, fb, clk := sized(t, 80, 24, Options{})
			send(m, "approval.requested", map[string]any{"approval_id": "ap1", "summary": c.summary, "expires_in_ms": 60000, "session_grant": c.grant})
			if got := strings.Contains(view(m), "[a] allow this exact command"); got != c.offerShow {
				t.Fatalf("the offer shown: %v; want %v:\n%s", got, c.offerShow, view(m))
			}
			clk.t = clk.t.Add(2 * time.Second)
			var cmd tea.Cmd
			for _, k := range c.keys {
				cmd = key(m, k)
			}
			if cmd != nil {
				cmd()
			}
			if answered(fb) != c.answered || (c.answered && (lastAllow(fb) != c.allow || lastScope(fb) != c.scope)) {
				t.Fatalf("answered %v allow %v scope %q", answered(fb), lastAllow(fb), lastScope(fb))
			}
			if c.scope == "session" && !strings.Contains(view(m)+printed(m), "allowed for this session: shell: make") {
				t.Fatalf("the grant is not said:\n%s\n%s", printed(m), view(m))
			}
			if c.name == "not grantable" && m.input.Value() != "a" {
				t.Fatalf("the key did not go to the draft: %q", m.input.Value())
			}
		})
	}
}

package mission

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// A pending approval is shown whole: its summary (the command, or an edit's
// path and change) wrapped to the screen, the keys, and the time left. A
// summary too tall for the live region is printed to the scrollback when
// it arrives and the live region asks about "the request above".

// approval is a pending approval request.
type approval struct {
	id, summary string
	deadline    time.Time
	printed     bool      // the summary went to the scrollback: too tall for the live region
	shown       time.Time // when it was drawn
	allow       bool      // the highlighted choice, which Enter confirms; deny until moved
	held        bool      // the last key could not answer: it went to the draft
}

// An approval answers only a deliberate key. Keys come in bursts: a key
// less than typingPause after the one before belongs to its burst. A key
// can answer only when its burst began answerGrace or more after the
// approval was drawn, and the burst so far holds nothing but the
// approval's own keys (y, n, the choice keys, Enter). So the keys of a
// burst typed for the next prompt never answer, however long it goes on
// after the approval appeared, nor does a key within the grace period;
// the first key that can answer comes after a pause, and a word typed
// after the pause ("hey you") answers nothing either: its first key went
// to the draft. Keys that cannot answer go to the input's draft, as they
// would without the approval.
const (
	typingPause = 700 * time.Millisecond
	answerGrace = 800 * time.Millisecond
)

// keyGate tracks the bursts of keys.
type keyGate struct {
	last, burst time.Time
	typed       bool // a key of the burst was not taken as an approval's key
}

// press records a key (or a paste) at t.
func (g *keyGate) press(t time.Time) {
	if g.last.IsZero() || t.Sub(g.last) >= typingPause {
		g.burst, g.typed = t, false
	}
	g.last = t
}

// mayAnswer reports whether the key just pressed may answer an approval
// drawn at shown.
func (g *keyGate) mayAnswer(shown time.Time) bool {
	return !g.typed && !g.burst.Before(shown.Add(answerGrace))
}

// approvalKey handles a key while an approval waits: y allows, n denies,
// the arrows and Tab move the choice, Enter confirms it (deny unless
// moved), when the key may answer; else the key goes to the draft.
func (m *Model) approvalKey(k tea.KeyPressMsg) tea.Cmd {
	a := m.approval
	s := k.String()
	if m.gate.mayAnswer(a.shown) {
		a.held = false
		switch s {
		case "y", "Y":
			return m.answer(true)
		case "n", "N":
			return m.answer(false)
		case "enter":
			return m.answer(a.allow)
		case "up", "down", "left", "right", "tab", "shift+tab":
			a.allow = !a.allow
			return nil
		}
	}
	m.gate.typed = true
	a.held = true
	if s != "enter" {
		m.input.Update(k)
	}
	return nil
}

// approvalHead is the first line of a pending approval.
const approvalHead = "approve?"

// summaryLines is the summary of a, wrapped.
func summaryLines(a *approval, width int) []string {
	return wrapLines(a.summary, max(4, width-2))
}

// approvalLines renders the pending approval for the live region.
func (m *Model) approvalLines(width int) []string {
	a := m.approval
	left := max(0, a.deadline.Sub(m.now()).Round(time.Second))
	var lines []string
	if a.printed {
		lines = append(lines, wrapLines(styleAsk().Render(approvalHead)+" the request printed above", width)...)
	} else {
		lines = append(lines, styleAsk().Render(approvalHead))
		for _, l := range summaryLines(a, width) {
			lines = append(lines, "  "+l)
		}
	}
	allow, deny := "[y] allow", "[n] deny"
	if a.allow {
		allow = "›" + allow
	} else {
		deny = "›" + deny
	}
	keys := styleBold().Render(allow+"  "+deny) + styleDim().Render("  ↑↓ Enter")
	when := styleDim().Render(fmt.Sprintf("denied automatically in %ds", int(left/time.Second)))
	if a.held {
		when = styleWarn().Render("typing goes to your draft: stop, then answer") + styleDim().Render(fmt.Sprintf(" · denied in %ds", int(left/time.Second)))
	}
	if ansi.StringWidth(keys)+2+ansi.StringWidth(when) <= width {
		lines = append(lines, keys+"  "+when)
	} else {
		lines = append(lines, keys)
		lines = append(lines, wrapLines(when, width)...)
	}
	return lines
}

// showApproval prints the summary of a new approval when the live region
// has no room for it whole.
func (m *Model) showApproval() tea.Cmd {
	a := m.approval
	if a == nil || a.printed {
		return nil
	}
	// head, summary, keys and time (up to two lines), status bar
	if len(summaryLines(a, m.textWidth()))+4 <= m.liveRows() {
		return nil
	}
	a.printed = true
	return m.print(styleAsk().Render("approval requested:") + "\n" + indent(a.summary, m.textWidth()))
}

// indent wraps s two columns short of width and indents it by two.
func indent(s string, width int) string {
	lines := wrapLines(s, max(4, width-2))
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return strings.Join(lines, "\n")
}

// How an approval ended is said once, by the backend: the activity line
// of the call that asked ("✗ shell denied by user", "✗ shell approval
// expired, not run", "✗ shell cancelled", "✗ shell refused: REASON"; see
// docs/mission-control.md, Approvals). This app adds a line only for an
// allowed call, saying what was allowed; the rest is styled here, in one
// place, so that a person's denial, an expiry, a cancellation and a
// protection's refusal never look alike.

// allowedLine records an allowed request.
func allowedLine(summary string) string {
	return styleDim().Render("allowed: " + strings.ReplaceAll(summary, "\n", "\n  "))
}

// failedStyle is the style of a failed activity's summary by who decided.
func failedStyle(summary string) lipgloss.Style {
	switch {
	case strings.Contains(summary, "refused: "):
		return styleError().Bold(true) // a protection
	case strings.Contains(summary, "approval expired"), strings.Contains(summary, "denied by user"):
		return styleWarn() // nobody in time, or the person
	case strings.HasSuffix(summary, ": cancelled"), summary == "cancelled":
		return styleDim()
	}
	return styleError()
}

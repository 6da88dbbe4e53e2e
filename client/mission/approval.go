package mission

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/magi-code/magi-code/client/human"
	"github.com/magi-code/magi-code/protocol"
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
	bytes       int       // the summary's size as the backend sent it
	cut         bool      // the backend cut the summary at its bound: what runs is longer
	allow       bool      // the highlighted choice, which Enter confirms; deny until moved
	grant       bool      // the backend may grant this exact call for the session (key a)
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
			if a.cut {
				return nil // one key never allows what is not shown whole
			}
			return m.answer(true, false)
		case "a", "A":
			if !a.grant {
				break // not an answer here: it goes to the draft
			}
			if a.cut {
				return nil
			}
			return m.answer(true, true)
		case "n", "N":
			return m.answer(false, false)
		case "enter":
			return m.answer(a.allow, false)
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

// summaryLines is the summary of a, its long runs of spaces collapsed,
// wrapped.
func summaryLines(a *approval, width int) []string {
	return wrapLines(collapseSpaces(a.summary), max(4, width-2))
}

// newApproval is the request as shown. summary is as the backend sent it;
// grant is its session_grant (docs/protocol.md, Optional capabilities:
// approval.session).
func newApproval(id, summary string, grant bool, now time.Time, expires time.Duration) *approval {
	return &approval{id: id, summary: human.Printable(summary), shown: now, deadline: now.Add(expires),
		bytes: len(summary), cut: cutSummary(summary), grant: grant}
}

// cutSummary reports whether the backend cut a request's summary at its
// bound (docs/protocol.md, Bounds: 1024 bytes; a command or path is cut
// a little before, to leave room for a protection's reason, and ends in
// "..."): the request that runs is longer than what is shown.
func cutSummary(s string) bool {
	return len(s) >= protocol.SummaryBytes-3 || (len(s) >= cutNear && strings.HasSuffix(s, "..."))
}

// cutNear is where a command's description is cut (896 bytes, less a
// character's bytes at most).
const cutNear = 890

// spaceRun is the shortest run of spaces collapsed: indentation stays.
const spaceRun = 16

// collapseSpaces shows each run of spaceRun spaces or more as ␠×N, so
// that what follows it stays in sight.
func collapseSpaces(s string) string {
	if !strings.Contains(s, strings.Repeat(" ", spaceRun)) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != ' ' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j-i >= spaceRun {
			fmt.Fprintf(&b, " ␠×%d ", j-i)
		} else {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// approvalLines renders the pending approval for the live region.
func (m *Model) approvalLines(width int) []string {
	a := m.approval
	left := max(0, a.deadline.Sub(m.now()).Round(time.Second))
	var lines []string
	size := styleDim().Render(" (" + bytesFor(a.bytes) + ")")
	if a.printed {
		lines = append(lines, wrapLines(styleAsk().Render(approvalHead)+" the request printed above"+size, width)...)
	} else {
		lines = append(lines, wrapLines(styleAsk().Render(approvalHead)+size, width)...)
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
	if a.cut {
		lines = append(lines, wrapLines(styleError().Render("the backend cut this request at its size bound: what runs is longer than shown; y is off (↑↓ and Enter choose)"), width)...)
		allow = "[↑↓ Enter] allow"
		if a.allow {
			allow = "›" + allow
		}
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
	if a.grant && !a.cut {
		lines = append(lines, wrapLines(styleBold().Render("[a]")+" allow this exact command for the rest of the session", width)...)
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
	// the live region's lines with the summary, and the status bar
	if len(m.approvalLines(m.textWidth()))+1 <= m.liveRows() {
		return nil
	}
	a.printed = true
	return m.print(styleAsk().Render("approval requested:") + "\n" + indent(collapseSpaces(a.summary), m.textWidth()))
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

// allowedLine records an allowed request; session: allowed for the rest
// of the session.
func allowedLine(summary string, session bool) string {
	head := "allowed: "
	if session {
		head = "allowed for this session: "
	}
	return styleDim().Render(head + strings.ReplaceAll(summary, "\n", "\n  "))
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

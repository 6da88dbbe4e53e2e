package mission

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

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
	pager       int       // the first line the open pager shows; -1: closed
	paged       bool      // the pager showed the request's last line
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
	if a.pager >= 0 && m.pagerKey(s) {
		return nil // scrolling the request: never typed, never an answer
	}
	if m.gate.mayAnswer(a.shown) {
		a.held = false
		switch s {
		case "y", "Y":
			if !m.mayAllowWithY() {
				return nil // one key never allows what was not shown whole
			}
			return m.answer(true, false)
		case "a", "A":
			if !a.grant {
				break // not an answer here: it goes to the draft
			}
			if !m.mayAllowWithY() {
				return nil // nor for the session what was not shown whole
			}
			return m.answer(true, true)
		case "v", "V":
			a.pager = 0
			m.sawPage()
			return nil
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
		bytes: len(summary), cut: cutSummary(summary), grant: grant, pager: -1}
}

// whole shows the whole request (approval.requested's "request", the
// optional approval.request capability) instead of the summary, which
// the backend cuts near 900 bytes; truncated: the request itself went on
// past its bound, so y stays off as for a cut summary.
func (a *approval) whole(request string, truncated bool) {
	a.summary, a.bytes, a.cut = human.Printable(request), len(request), truncated
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

// An approval is laid out again at every size. The live region grows to
// all but one row of the screen while an approval waits (printRows), so
// the request is shown whole there when its rows, the keys and the status
// bar fit in height-1 rows. A request taller than that is printed above,
// once, whole, and the live region offers the pager (v): it shows the
// request whole, a screenful at a time, and y allows only once every line
// of it has been on the screen there, or while it fits the live region.
// n denies at any time; an explicit choice (an arrow, then Enter) allows
// too, as for a request the backend cut.

// approvalWhole is the approval with its whole summary: the head, the
// summary, the cut warning, the keys and the time left.
func (m *Model) approvalWhole(width int) []string {
	a := m.approval
	lines := wrapLines(styleAsk().Render(approvalHead)+m.approvalSize(), width)
	for _, l := range summaryLines(a, width) {
		lines = append(lines, "  "+l)
	}
	return append(lines, m.approvalFoot(width, true)...)
}

// approvalSize is " (N bytes)", dim.
func (m *Model) approvalSize() string {
	return styleDim().Render(" (" + bytesFor(m.approval.bytes) + ")")
}

// fitsWhole reports whether the whole approval and the status bar fit in
// the rows an approval may take (all but one of the screen's).
func (m *Model) fitsWhole() bool {
	return m.height <= 0 || len(m.approvalWhole(m.textWidth()))+1 <= m.height-1
}

// mayAllowWithY reports whether y allows: the request was not cut by the
// backend and is shown whole now, or was paged through to its end.
func (m *Model) mayAllowWithY() bool {
	a := m.approval
	return !a.cut && (a.paged || m.fitsWhole())
}

// approvalFoot is the cut warning, the keys and the time left; whole: the
// request is shown whole above them.
func (m *Model) approvalFoot(width int, whole bool) []string {
	a := m.approval
	left := max(0, a.deadline.Sub(m.now()).Round(time.Second))
	var lines []string
	allow, deny := "[y] allow", "[n] deny"
	switch {
	case a.cut:
		lines = append(lines, wrapLines(styleError().Render("the backend cut this request at its size bound: what runs is longer than shown; y is off (↑↓ and Enter choose)"), width)...)
		allow = "[↑↓ Enter] allow"
	case !whole && !a.paged:
		allow = "[v] view " // as wide as "[y] allow": the pager's rows stay put when it changes
	}
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
	if strWidth(keys)+2+strWidth(when) <= width {
		lines = append(lines, keys+"  "+when)
	} else {
		lines = append(lines, wrapLines(keys, width)...)
		lines = append(lines, wrapLines(when, width)...)
	}
	if a.grant && !a.cut {
		lines = append(lines, wrapLines(styleBold().Render("[a]")+" allow this exact command for the rest of the session", width)...)
	}
	if m.noSandbox() {
		lines = append(lines, wrapLines(styleWarn().Render("no OS sandbox: commands you allow run with all your permissions"), width)...)
	}
	return lines
}

// approvalLines renders the pending approval for the live region: whole
// when it fits, else a line about the request printed above and the
// pager, or the pager itself.
func (m *Model) approvalLines(width int) []string {
	a := m.approval
	if a.pager >= 0 {
		return m.pagerLines(width)
	}
	if m.fitsWhole() {
		return m.approvalWhole(width)
	}
	head := styleAsk().Render(approvalHead) + " the request printed above" + m.approvalSize() + ", too tall to show here"
	return append(wrapLines(head, width), m.approvalFoot(width, false)...)
}

// pagerRows is how many of the request's lines the pager shows at once.
func (m *Model) pagerRows() int {
	// all but one row of the screen: a title, the lines, the hint, the
	// foot, the status bar
	return max(1, m.height-1-1-1-len(m.approvalFoot(m.textWidth(), false))-1)
}

// pagerLines is the pager: a title, a screenful of the request, the keys.
func (m *Model) pagerLines(width int) []string {
	a := m.approval
	body := summaryLines(a, width)
	rows := m.pagerRows()
	a.pager = max(0, min(a.pager, len(body)-rows))
	end := min(len(body), a.pager+rows)
	title := styleAsk().Render(approvalHead) + styleDim().Render(fmt.Sprintf(" lines %d-%d of %d (%s)", a.pager+1, end, len(body), bytesFor(a.bytes)))
	lines := []string{truncate(title, width, "…")}
	for _, l := range body[a.pager:end] {
		lines = append(lines, "  "+l)
	}
	foot := m.approvalFoot(width, false)
	hint := styleDim().Render("↑↓ PgUp PgDn Home End scroll · Esc closes")
	return append(append(lines, truncate(hint, width, "…")), foot...)
}

// pagerKey scrolls the open pager; the end of the request on the screen
// makes y allow.
func (m *Model) pagerKey(s string) bool {
	a := m.approval
	rows := m.pagerRows()
	switch s {
	case "up", "k":
		a.pager--
	case "down", "j":
		a.pager++
	case "pgup", "b":
		a.pager -= rows
	case "pgdown", "space", " ", "f":
		a.pager += rows
	case "home", "g":
		a.pager = 0
	case "end", "G":
		a.pager = 1 << 30
	case "esc", "q", "v":
		a.pager = -1
		return true
	default:
		return false
	}
	m.sawPage()
	return true
}

// sawPage clamps the pager's position and records whether the request's
// last line is on the screen.
func (m *Model) sawPage() {
	a := m.approval
	n := len(summaryLines(a, m.textWidth()))
	rows := m.pagerRows()
	a.pager = max(0, min(a.pager, n-rows))
	if a.pager+rows >= n {
		a.paged = true
	}
}

// showApproval prints the summary of an approval above, once, when it
// does not fit the live region whole.
func (m *Model) showApproval() tea.Cmd {
	a := m.approval
	if a == nil || a.printed || m.fitsWhole() {
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

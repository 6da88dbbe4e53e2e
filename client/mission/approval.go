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
	printed     bool // the summary went to the scrollback: too tall for the live region
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
	keys := styleBold().Render("[y] allow  [n/Enter] deny")
	when := styleDim().Render(fmt.Sprintf("denied automatically in %ds", int(left/time.Second)))
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

package mission

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/magi-code/magi-code/client/human"
)

// The styles are functions, not package variables: a package variable
// set by a call is set at init, in every process of this binary, `serve
// --stdio` included, which never draws anything.
func styleDim() lipgloss.Style   { return lipgloss.NewStyle().Faint(true) }
func styleError() lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color("9")) }
func styleWarn() lipgloss.Style  { return lipgloss.NewStyle().Foreground(lipgloss.Color("11")) }
func styleUser() lipgloss.Style {
	return lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12"))
}
func styleHead() lipgloss.Style {
	return lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("13"))
}
func styleCode() lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color("10")) }
func styleBold() lipgloss.Style { return lipgloss.NewStyle().Bold(true) }
func styleAsk() lipgloss.Style {
	return lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("11"))
}
func styleStatus() lipgloss.Style { return lipgloss.NewStyle().Reverse(true) }
func styleCursor() lipgloss.Style { return lipgloss.NewStyle().Reverse(true) }

// View renders the live region: the unsettled part of the running turn
// (its last lines when it is taller than the room left), a pending
// approval, the spinner or the input, and the status bar. It is never
// taller than liveRows nor wider than the screen.
func (m *Model) View() tea.View {
	if m.quitSent {
		return tea.NewView("")
	}
	w := m.textWidth()
	var bottom []string
	switch {
	case m.approval != nil:
		bottom = m.approvalLines(w)
	case m.picker != nil:
		bottom = m.picker.lines(w, m.liveRows()-1)
	case m.running:
		// The input stays: the next prompt can be written meanwhile.
		bottom = append([]string{m.spinnerLine()}, m.inputLines(w)...)
	default:
		bottom = m.inputLines(w)
	}
	bottom = append(bottom, m.statusLine())
	var top []string
	for _, it := range m.items {
		if r := it.render(w, m.opts.Hyperlinks); r != "" {
			top = append(top, wrapLines(r, w)...)
		}
	}
	if room := m.liveRows() - len(bottom); len(top) > room {
		if room <= 0 {
			top = nil
		} else {
			hidden := len(top) - room + 1
			top = append([]string{styleDim().Render(truncate(fmt.Sprintf("↑ %d more lines: the whole reply prints when it is complete", hidden), w, "…"))}, top[hidden:]...)
		}
	}
	return tea.NewView(strings.Join(append(top, bottom...), "\n"))
}

// spinnerLine is the spinner, the time the turn has run and what stops it.
func (m *Model) spinnerLine() string {
	frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	s := frames[m.frame%len(frames)] + " working " + elapsed(m.now().Sub(m.turnStart))
	if m.cancelling {
		s = frames[m.frame%len(frames)] + " cancelling… (Ctrl-C again leaves)"
	} else {
		s += " · Esc or Ctrl-C cancels"
	}
	return styleDim().Render(truncate(s, m.textWidth(), "…"))
}

// statusLine is provider · model · session · cwd · readiness.
func (m *Model) statusLine() string {
	session := "no session"
	if m.sessionID != "" {
		session = "session " + short(m.sessionID)
	}
	cwd := m.opts.Cwd
	if cwd != "" {
		cwd = filepath.Base(cwd)
	}
	// In the order shown; rank says which go first when the screen is too
	// narrow for all: the directory, the session, the provider, the
	// tokens, the model, then the readiness; "no sandbox", when nothing
	// confines the backend's commands, is never dropped.
	noSandbox := ""
	if m.noSandbox() {
		noSandbox = "no sandbox"
	}
	parts := []struct {
		text string
		rank int
	}{
		{orDash(m.provider), 3}, {orDash(m.model), 5}, {human.ReadinessWord(m.readiness), 6},
		{noSandbox, 7}, {session, 2}, {orDash(cwd), 1}, {m.usage.short(), 4},
	}
	width := max(8, m.width)
	var s string
	for drop := 0; drop <= 6; drop++ {
		var shown []string
		for _, p := range parts {
			if p.text != "" && p.rank > drop {
				shown = append(shown, p.text)
			}
		}
		s = human.Visible(" "+strings.Join(shown, " · ")+" ", 1<<12)
		if strWidth(s) <= width {
			break
		}
	}
	return styleStatus().Render(truncate(s, width, "…"))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// renderActivity is one tool/MCP/subagent line: ● started, ✓ completed,
// ✗ failed.
func renderActivity(a *activity) string {
	mark := "●"
	style := styleDim()
	switch a.state {
	case "completed":
		mark, style = "✓", styleCode()
	case "failed":
		mark, style = "✗", styleError()
	}
	name := human.Visible(a.name, maxNameRunes)
	if name == "" {
		name = human.Visible(a.kind, maxNameRunes)
	}
	// The runner's summaries begin with the tool's name ("shell: started"):
	// said once.
	summary := strings.TrimPrefix(human.Printable(a.summary), name+": ")
	if a.state == "failed" {
		summary = failedStyle(summary).Render(summary)
	}
	return style.Render(mark+" "+name) + " " + summary
}

// maxNameRunes bounds a tool's name shown.
const maxNameRunes = 256

// renderEntry renders a history entry or the user's prompt; its text is
// made printable here (human.Printable), whoever wrote it.
func renderEntry(kind, text string, width int, links bool) string {
	text = human.Printable(text)
	switch kind {
	case "user":
		return styleUser().Render("you› ") + strings.ReplaceAll(text, "\n", "\n     ")
	case "assistant":
		return renderMarkdown(text, width, links)
	case "reasoning_summary":
		return styleDim().Render("thinking: " + text)
	case "activity":
		return styleDim().Render("• " + text)
	case "diagnostic":
		return styleWarn().Render(human.DiagnosticEntry(text))
	case "compaction":
		return styleDim().Render("(compacted) " + text)
	}
	return text
}

package mission

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client/human"
	"github.com/magi-code/magi-code/protocol"
)

// A tool call's output (the optional activity.output capability,
// docs/protocol.md, Optional capabilities) is shown under the call's line,
// collapsed to its first previewLines lines, each cut to the width; Ctrl-O
// prints the whole of the most recent collapsed output to the scrollback,
// then the one before it. The backend bounds an output to protocol.ActivityOutputBytes; the app
// keeps at most that of each call, and the outputs of the last
// keptOutputs collapsed calls.

const (
	previewLines = 4
	keptOutputs  = 16
	outputIndent = "  │ "
)

// toolOutput is the output of one call as it arrives.
type toolOutput struct {
	text      strings.Builder
	next      int  // the chunk expected next
	missing   bool // a chunk was skipped or came after the last
	truncated bool // the backend cut it
	done      bool // the last chunk came
	expanded  bool // Ctrl-O printed it whole
}

// addOutput takes one activity.output event of activity a: chunks in order,
// nothing past the last one or past the protocol's bound.
func (a *activity) addOutput(chunk int, text string, last, truncated bool) {
	if a.out == nil {
		a.out = &toolOutput{}
	}
	o := a.out
	if o.done || chunk != o.next || o.text.Len()+len(text) > protocol.ActivityOutputBytes {
		o.missing = true
		return
	}
	o.text.WriteString(text)
	o.next++
	o.done, o.truncated = last, truncated
}

// lines is the output as printable lines.
func (o *toolOutput) lines() []string {
	return strings.Split(strings.TrimRight(human.Printable(o.text.String()), "\n"), "\n")
}

// note is what the app adds after an output it did not get whole.
func (o *toolOutput) note() string {
	switch {
	case o.missing || !o.done:
		return "(output incomplete)"
	case o.truncated:
		return fmt.Sprintf("(output cut at %d bytes)", protocol.ActivityOutputBytes)
	}
	return ""
}

// collapses reports whether the preview leaves anything out at width.
func (o *toolOutput) collapses(width int) bool {
	lines := o.lines()
	if len(lines) > previewLines {
		return true
	}
	room := max(1, width-strWidth(outputIndent))
	for _, l := range lines {
		if strWidth(l) > room {
			return true
		}
	}
	return false
}

// said reports whether the output says nothing the activity's line does
// not: a denied or cancelled call's output is its summary's reason.
func (a *activity) said() bool {
	o := a.out
	if o == nil || o.text.Len() == 0 {
		return true
	}
	out := strings.TrimSpace(human.Printable(o.text.String()))
	return o.done && !o.missing && !strings.Contains(out, "\n") && strings.Contains(human.Printable(a.summary), out)
}

// renderPreview is the collapsed output under an activity's line: its
// first lines, each cut to width, and how much more Ctrl-O shows.
func renderPreview(a *activity, width int) string {
	if a.said() {
		return ""
	}
	o := a.out
	lines := o.lines()
	room := max(1, width-strWidth(outputIndent))
	var b strings.Builder
	for i, l := range lines {
		if i == previewLines {
			break
		}
		b.WriteString("\n" + styleDim().Render(outputIndent) + a.paint(l, truncate(l, room, "…")))
	}
	var more []string
	if n := len(lines) - previewLines; n > 0 {
		more = append(more, plural(n, "more line"))
	}
	if note := o.note(); note != "" {
		more = append(more, note)
	}
	if o.collapses(width) {
		more = append(more, "Ctrl-O shows all")
		if strWidth(outputIndent+strings.Join(more, ", ")) > width {
			more[len(more)-1] = "Ctrl-O" // narrow screens: the key alone
		}
	}
	if len(more) > 0 {
		b.WriteString("\n" + styleDim().Render(truncate(outputIndent+strings.Join(more, ", "), width, "…")))
	}
	return b.String()
}

// paint colours s, a piece of line of a's output: an edit's or a write's
// output is its change (the runner's, the same its approval showed), whose
// removed lines ("- ") are red and added ones ("+ ") green; any other
// line, and every line of any other tool, is left as it is. The line is
// already printable. Without colour (NO_COLOR, Run) the colours are
// dropped.
func (a *activity) paint(line, s string) string {
	if a.name != "edit_file" && a.name != "write_file" {
		return s
	}
	switch {
	case strings.HasPrefix(line, "- "):
		return styleError().Render(s)
	case strings.HasPrefix(line, "+ "):
		return styleCode().Render(s)
	}
	return s
}

// plural is "1 more line", "3 more lines".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// keepOutput remembers a settled call whose output the preview collapsed,
// for Ctrl-O.
func (m *Model) keepOutput(a *activity) {
	if a.said() || !a.out.collapses(m.textWidth()) {
		return
	}
	m.outputs = append(m.outputs, a)
	if len(m.outputs) > keptOutputs {
		m.outputs = append(m.outputs[:0], m.outputs[len(m.outputs)-keptOutputs:]...)
	}
}

// expandOutput prints the most recent collapsed output not yet shown whole.
func (m *Model) expandOutput() tea.Cmd {
	for i := len(m.outputs) - 1; i >= 0; i-- {
		a := m.outputs[i]
		if a.out.expanded {
			continue
		}
		a.out.expanded = true
		return m.print(renderExpanded(a, m.textWidth()))
	}
	return m.print(styleDim().Render("no collapsed tool output to show"))
}

// renderExpanded is a call's whole output, wrapped to width.
func renderExpanded(a *activity, width int) string {
	lines := a.out.lines()
	room := max(1, width-strWidth(outputIndent))
	var b strings.Builder
	b.WriteString(renderActivity(a))
	head := plural(len(lines), "line")
	if note := a.out.note(); note != "" {
		head += " " + note
	}
	b.WriteString("\n" + styleDim().Render(outputIndent+head))
	for _, l := range lines {
		for _, w := range strings.Split(hardwrap(l, room, true), "\n") {
			b.WriteString("\n" + styleDim().Render(outputIndent) + a.paint(l, w))
		}
	}
	return b.String()
}

package mission

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// The screen has two parts. The scrollback above receives finished blocks
// (tea.Println), each exactly once, whole and in order. The live region
// below (View) holds what may still change: the unsettled part of the
// running turn, a pending approval, the input, a menu, the status bar.
//
// Bubble Tea inserts a printed block above the live region by scrolling
// the screen up by the block's height and writing it into the room made.
// That holds only while the block and the live region together fit on the
// screen: a taller block scrolls the live region itself into the
// scrollback and misplaces the cursor. So the live region is kept at most
// liveRows tall, and blocks are printed in slices of at most printRows
// lines, one slice at a time (printing is a queue here, not concurrent
// commands, so the order holds). Lines are wrapped before printing, one
// column short of the width: a line exactly as wide as the screen is
// counted as two by the insertion.
//
// Nothing is printed before the first window size arrives and a frame has
// been drawn: until then the screen's height is unknown, and the insertion
// would land at the wrong rows.
//
// A resize breaks that arrangement: a terminal that reflows (tmux, kitty,
// iTerm2, VTE, Windows Terminal) wraps the live region's lines at the new
// width, so the frame is taller than Bubble Tea redraws it and its top
// rows stay above it, on the screen and then in the scrollback; a shorter
// screen pushes a tall frame's top into the scrollback too; a wider one
// joins rows and the redraw erases finished lines above the frame. So once
// the size has settled (repaintWait after the last resize), the app
// repaints: it clears the screen and the scrollback and prints every
// finished block again, wrapped to the new width, then draws the live
// region below. The scrollback then holds each finished block once and no
// frame. Ctrl-L repaints the same way.

// printedMsg: one slice reached the terminal; the next may go.
type printedMsg struct{}

// outBlock is a block waiting to be printed; lines is set once it was
// wrapped (and a part of it printed).
type outBlock struct {
	text    string
	lines   []string
	repaint bool // not a block: clear the screen and the scrollback and print m.done again
}

// repaintMsg: the size has not changed for repaintWait since resize gen.
type repaintMsg struct{ gen int }

// repaintWait is how long the size must stay put before the repaint: a
// window dragged wider sends many sizes, and each repaint prints the
// whole conversation.
const repaintWait = 150 * time.Millisecond

// maxRepaintBytes bounds the finished text kept for a repaint (the
// terminal's own scrollback is bounded too); the oldest blocks go first.
const maxRepaintBytes = 2 << 20

// clearAll moves to the screen's top-left corner and erases the screen
// below (ED 0, which no terminal saves) and then the scrollback (ED 3).
// Not ED 2: several terminals (tmux, VTE) push the screen into the
// scrollback first.
const clearAll = "\x1b[H\x1b[J\x1b[3J"

// textWidth is the width content is wrapped to.
func (m *Model) textWidth() int { return max(8, m.width-1) }

// liveRows is the tallest the live region grows: the screen less the
// rows of a slice printed above it (the one on its way, or the next).
func (m *Model) liveRows() int {
	if m.height <= 0 {
		return 1 << 20
	}
	return max(3, m.height-max(m.printRows(), m.flightRows))
}

// printRows is the tallest slice printed at once: a third of the screen,
// or while an approval waits, what its rows and the status bar leave (at
// least one row), so the approval is laid out whole when it fits in all
// but one row of the screen.
func (m *Model) printRows() int {
	if m.approval != nil && m.height > 0 {
		return max(1, m.height-len(m.approvalLines(m.textWidth()))-1)
	}
	return max(1, m.height/3)
}

// print sends blocks to the scrollback, in order, and records them.
func (m *Model) print(blocks ...string) tea.Cmd {
	for _, b := range blocks {
		if b == "" {
			continue
		}
		m.Printed, m.printedBytes, _ = keepTail(m.Printed, m.printedBytes, b)
		m.outbox = append(m.outbox, &outBlock{text: b})
	}
	return m.pump()
}

// pump prints the next slice unless one is on its way, and quits once
// everything is printed if the app is leaving.
func (m *Model) pump() tea.Cmd {
	if m.printing {
		return nil
	}
	if !m.sized {
		// Leaving before the first frame: what is queued prints once it is
		// drawn, unless no window size ever came.
		if m.quitting && !m.quitSent && m.height == 0 {
			m.quitSent = true
			return tea.Quit
		}
		return nil
	}
	if len(m.outbox) == 0 {
		if m.quitting && !m.quitSent {
			m.quitSent = true
			return tea.Quit
		}
		return nil
	}
	b := m.outbox[0]
	if b.repaint {
		m.outbox = m.outbox[1:]
		m.printing, m.flightRows = true, m.height
		// The reprint goes as one Println whose first line clears (its
		// lines land from the top of the cleared screen and scroll up
		// into the scrollback in order); ClearScreen then makes Bubble
		// Tea draw the live region whole below them.
		return tea.Sequence(tea.Println(m.repaintText()), tea.ClearScreen, func() tea.Msg { return printedMsg{} })
	}
	if b.lines == nil {
		b.lines = wrapLines(b.text, m.textWidth())
	}
	n := min(len(b.lines), m.printRows())
	slice := strings.Join(b.lines[:n], "\n")
	b.lines = b.lines[n:]
	m.flightRows = n
	if len(b.lines) == 0 {
		m.outbox = m.outbox[1:]
		m.keep(b.text)
	}
	m.printing = true
	return tea.Sequence(tea.Println(slice), func() tea.Msg { return printedMsg{} })
}

// keep records a block whose last slice is on its way, for a repaint.
func (m *Model) keep(text string) {
	var cut bool
	m.done, m.doneBytes, cut = keepTail(m.done, m.doneBytes, text)
	m.doneCut = m.doneCut || cut
}

// keepTail appends text to blocks, which hold size bytes, and drops the
// oldest blocks while they hold more than maxRepaintBytes (the newest one
// stays whatever its size); cut says whether any was dropped. A day's
// session then costs bounded memory however much it printed.
func keepTail(blocks []string, size int, text string) ([]string, int, bool) {
	blocks = append(blocks, text)
	size += len(text)
	cut := false
	for size > maxRepaintBytes && len(blocks) > 1 {
		size -= len(blocks[0])
		blocks[0] = ""
		blocks = blocks[1:]
		cut = true
	}
	return blocks, size, cut
}

// repaintText is the Println of a repaint: clearAll, then every finished
// block wrapped to the width as it is now.
func (m *Model) repaintText() string {
	var lines []string
	if m.doneCut {
		lines = append(lines, styleDim().Render("(earlier output is not redrawn after a resize)"))
	}
	for _, b := range m.done {
		lines = append(lines, wrapLines(b, m.textWidth())...)
	}
	if len(lines) == 0 {
		return clearAll
	}
	lines[0] = clearAll + lines[0]
	return strings.Join(lines, "\n")
}

// repaint queues a repaint before the blocks not printed yet; a block
// partly printed prints again whole after it.
func (m *Model) repaint() tea.Cmd {
	if !m.sized {
		return nil
	}
	if len(m.outbox) > 0 {
		if m.outbox[0].repaint {
			return nil
		}
		m.outbox[0].lines = nil
	}
	m.outbox = append([]*outBlock{{repaint: true}}, m.outbox...)
	return m.pump()
}

// wrapLines wraps s to width columns and splits it into lines. A line's
// continuation rows hang under its text (hangOf): a list item's under the
// item's first word, a quote's behind its bar, an indented line (code,
// /help's rows) at its indentation.
func wrapLines(s string, width int) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strWidth(line) <= width {
			out = append(out, line)
			continue
		}
		cont, hang := hangOf(ansi.Strip(line), width)
		rows := strings.Split(wrap(line, width-hang, ""), "\n")
		out = append(out, rows[0])
		for _, r := range rows[1:] {
			out = append(out, cont+r)
		}
	}
	return out
}

// hangOf is the prefix of a line's continuation rows and its width: the
// line's leading spaces, then as many more as its list marker ("• ",
// "- ", "* ", "+ ", "1. ", "1) ") takes, or its quote bar again ("│ ").
// None when it would take more than a third of the width.
func hangOf(plain string, width int) (string, int) {
	rest := strings.TrimLeft(plain, " ")
	lead := len(plain) - len(rest)
	prefix := strings.Repeat(" ", lead)
	switch {
	case strings.HasPrefix(rest, "│ "):
		prefix += styleDim().Render("│ ")
		lead += 2
	case strings.HasPrefix(rest, "• "), strings.HasPrefix(rest, "- "), strings.HasPrefix(rest, "* "), strings.HasPrefix(rest, "+ "):
		prefix += "  "
		lead += 2
	default:
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		if digits > 0 && digits < 4 && len(rest) > digits+1 && (rest[digits] == '.' || rest[digits] == ')') && rest[digits+1] == ' ' {
			prefix += strings.Repeat(" ", digits+2)
			lead += digits + 2
		}
	}
	if lead == 0 || lead > width/3 {
		return "", 0
	}
	return prefix, lead
}

// drawnMsg: the first frame has been drawn (drawWait after the first
// window size).
type drawnMsg struct{}

// drawWait is how long after the first window size printing waits: Bubble
// Tea draws a frame every 1/60 s, and a block printed before the first
// frame is drawn lands at the wrong rows (the insertion counts on the
// frame's height).
const drawWait = 100 * time.Millisecond

// resized applies a new window size.
func (m *Model) resized(w, h int) tea.Cmd {
	first := m.height == 0
	if !first && w == m.width && h == m.height {
		return nil
	}
	m.width, m.height = w, h
	if first {
		return tea.Tick(drawWait, func(time.Time) tea.Msg { return drawnMsg{} })
	}
	m.sizeGen++
	gen := m.sizeGen
	// A pending approval that no longer fits is printed above, whole.
	return tea.Batch(m.showApproval(), tea.Tick(repaintWait, func(time.Time) tea.Msg { return repaintMsg{gen: gen} }))
}

// ticking: the tick loop runs (spinner, elapsed time, countdown).
const tickEvery = 100 * time.Millisecond

// startTicking starts the tick loop unless it runs.
func (m *Model) startTicking() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return tea.Tick(tickEvery, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// ticked advances the spinner and the countdown; the loop goes on while a
// turn runs or an approval waits.
func (m *Model) ticked() tea.Cmd {
	m.ticking = false
	m.frame++
	m.countdown()
	cmd := m.settle()
	if m.running || m.approval != nil {
		return tea.Batch(cmd, m.startTicking())
	}
	return cmd
}

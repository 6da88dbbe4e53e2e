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

// printedMsg: one slice reached the terminal; the next may go.
type printedMsg struct{}

// outBlock is a block waiting to be printed; lines is set once it was
// wrapped (and a part of it printed).
type outBlock struct {
	text  string
	lines []string
}

// textWidth is the width content is wrapped to.
func (m *Model) textWidth() int { return max(8, m.width-1) }

// liveRows is the tallest the live region grows.
func (m *Model) liveRows() int {
	if m.height <= 0 {
		return 1 << 20
	}
	return max(3, m.height-m.printRows())
}

// printRows is the tallest slice printed at once.
func (m *Model) printRows() int { return max(1, m.height/3) }

// print sends blocks to the scrollback, in order, and records them.
func (m *Model) print(blocks ...string) tea.Cmd {
	for _, b := range blocks {
		if b == "" {
			continue
		}
		m.Printed = append(m.Printed, b)
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
	if b.lines == nil {
		b.lines = wrapLines(b.text, m.textWidth())
	}
	n := min(len(b.lines), m.printRows())
	slice := strings.Join(b.lines[:n], "\n")
	b.lines = b.lines[n:]
	if len(b.lines) == 0 {
		m.outbox = m.outbox[1:]
	}
	m.printing = true
	return tea.Sequence(tea.Println(slice), func() tea.Msg { return printedMsg{} })
}

// wrapLines wraps s to width columns and splits it into lines.
func wrapLines(s string, width int) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(line, width, ""), "\n")...)
	}
	return out
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
	m.width, m.height = w, h
	if first {
		return tea.Tick(drawWait, func(time.Time) tea.Msg { return drawnMsg{} })
	}
	// A pending approval that no longer fits is printed above, whole.
	return m.showApproval()
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

package mission

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// drain completes every print on its way, as the terminal would.
func drain(m *Model) {
	for range 1000 {
		if !m.printing {
			return
		}
		m.Update(printedMsg{})
	}
}

// Only the last of several resizes repaints, once its size stayed put; the
// repaint goes before the blocks not printed yet, and a block printed in
// part prints again whole after it.
func TestRepaintAfterTheLastResize(t *testing.T) {
	m, _, _ := sized(t, 80, 24, Options{})
	m.print("first block")
	drain(m)
	var tall []string
	for i := range 50 {
		tall = append(tall, fmt.Sprintf("tall-%02d", i))
	}
	m.print(strings.Join(tall, "\n")) // a first slice goes, the rest waits
	if !m.printing || len(m.outbox) != 1 || m.outbox[0].lines == nil {
		t.Fatalf("the tall block is not printing in slices: %+v", m.outbox)
	}
	m.Update(tea.WindowSizeMsg{Width: 30, Height: 20})
	stale := m.sizeGen
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40}) // the same size again: not a resize
	if m.sizeGen != stale+1 {
		t.Fatalf("sizeGen %d after two resizes from %d", m.sizeGen, stale)
	}
	m.Update(repaintMsg{gen: stale})
	for _, b := range m.outbox {
		if b.repaint {
			t.Fatal("a resize followed by another repainted")
		}
	}
	m.Update(repaintMsg{gen: m.sizeGen})
	if len(m.outbox) != 2 || !m.outbox[0].repaint || m.outbox[1].lines != nil {
		t.Fatalf("want the repaint, then the tall block whole: %+v", m.outbox)
	}
	m.Update(repaintMsg{gen: m.sizeGen}) // Ctrl-L meanwhile: one repaint
	if n := len(m.outbox); n != 2 {
		t.Fatalf("%d queued; a second repaint was queued behind the first", n)
	}
	m.Update(printedMsg{}) // the slice in flight landed: the repaint goes
	if len(m.outbox) != 1 || m.outbox[0].repaint {
		t.Fatalf("the repaint did not go next: %+v", m.outbox)
	}
	text := m.repaintText()
	if !strings.HasPrefix(text, clearAll) || strings.Count(text, "first block") != 1 || strings.Contains(text, "tall-") {
		t.Fatalf("the repaint is not the finished blocks once after clearAll: %q", text)
	}
	drain(m)
	if got := strings.Count(strings.Join(m.done, "\n"), "tall-00"); got != 1 {
		t.Fatalf("the tall block is kept %d times for the next repaint", got)
	}
}

// The repaint wraps every finished block to the width as it is then.
func TestRepaintWrapsToTheNewWidth(t *testing.T) {
	m, _, _ := sized(t, 80, 24, Options{})
	long := strings.Repeat("word ", 30)
	m.print(long)
	drain(m)
	m.Update(tea.WindowSizeMsg{Width: 30, Height: 20})
	for _, l := range strings.Split(m.repaintText(), "\n") {
		if w := ansi.StringWidth(l); w >= 30 {
			t.Fatalf("a repainted line of %d columns on a 30-column screen: %q", w, l)
		}
	}
}

// What is kept for a repaint is bounded; the repaint says that the
// oldest part is not redrawn.
func TestRepaintBounded(t *testing.T) {
	m, _, _ := sized(t, 80, 24, Options{})
	block := strings.Repeat("y", 64<<10)
	for range 2 * maxRepaintBytes / len(block) {
		m.print(block)
		drain(m)
	}
	if m.doneBytes > maxRepaintBytes || !m.doneCut {
		t.Fatalf("kept %d bytes (bound %d), cut %v", m.doneBytes, maxRepaintBytes, m.doneCut)
	}
	printed := 0
	for _, b := range m.Printed {
		printed += len(b)
	}
	if printed > maxRepaintBytes || printed != m.printedBytes {
		t.Fatalf("the record of printed blocks holds %d bytes (counted %d, bound %d)", printed, m.printedBytes, maxRepaintBytes)
	}
	if !strings.Contains(m.repaintText(), "not redrawn") {
		t.Fatal("the repaint does not say its oldest part is missing")
	}
}

// Ctrl-L repaints.
func TestCtrlLRepaints(t *testing.T) {
	m, _, _ := sized(t, 80, 24, Options{})
	m.print("a block")
	drain(m)
	key(m, "ctrl+l")
	if !m.printing || strings.Count(m.repaintText(), "a block") != 1 {
		t.Fatal("Ctrl-L did not repaint")
	}
}

// A wrapped line's continuation rows hang under its text; a line whose
// indentation would take more than a third of the width does not hang.
func TestWrapHangs(t *testing.T) {
	long := strings.Repeat("word ", 12)
	for _, c := range []struct{ line, cont string }{
		{"• " + long, "  "},
		{"  - " + long, "    "},
		{"12. " + long, "    "},
		{"3) " + long, "   "},
		{"│ " + long, "│ "},
		{"  code " + long, "  "},
		{long, ""},
		{"1.5 is " + long, ""},
		{strings.Repeat(" ", 12) + long, ""},
	} {
		rows := wrapLines(c.line, 30)
		if len(rows) < 2 {
			t.Fatalf("%q did not wrap", c.line)
		}
		for _, r := range rows[1:] {
			p := ansi.Strip(r)
			if !strings.HasPrefix(p, c.cont) || strings.HasPrefix(strings.TrimPrefix(p, c.cont), " ") || ansi.StringWidth(r) > 30 {
				t.Fatalf("%q: continuation %q does not hang at %q within 30 columns", c.line, p, c.cont)
			}
		}
	}
}

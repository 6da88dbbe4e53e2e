package mission

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// The editor moves over, deletes and lays out a grapheme cluster (an
// emoji with its skin tone or variation selector, a ZWJ family, a letter
// with a combining mark) as one character, measured as it is drawn.
func TestEditorClusters(t *testing.T) {
	const thumb, family, heart, accent = "👍🏽", "👨‍👩‍👧", "❤️", "e\u0301"
	clusterWidths.Store(true)
	defer clusterWidths.Store(false)
	var in editor
	press(&in, "a"+thumb+family+heart+accent+"z")
	press(&in, "left", "left")
	if got := string(in.value[in.pos:]); got != accent+"z" {
		t.Fatalf("two Lefts from the end stop before %q; want before %q", got, accent+"z")
	}
	press(&in, "backspace")
	if in.Value() != "a"+thumb+family+accent+"z" {
		t.Fatalf("Backspace left %q; want the heart gone whole", in.Value())
	}
	press(&in, "left")
	in.Update(tea.KeyPressMsg{Code: tea.KeyDelete})
	if in.Value() != "a"+thumb+accent+"z" {
		t.Fatalf("Delete left %q; want the family gone whole", in.Value())
	}
	press(&in, "right")
	if got := string(in.value[in.pos:]); got != "z" {
		t.Fatalf("Right stopped before %q; want after the accented e", got)
	}
	in.Reset()
	press(&in, strings.Repeat(heart, 20)+strings.Repeat(family, 10)+strings.Repeat(thumb, 10))
	for _, w := range []int{30, 11, 7} {
		lines := in.Lines(w, 100)
		var all strings.Builder
		for _, l := range lines {
			if got := ansi.StringWidth(l); got > w {
				t.Fatalf("a row of %d columns at %d: %q", got, w, ansi.Strip(l))
			}
			all.WriteString(strings.TrimLeft(ansi.Strip(l), "› "))
		}
		for _, c := range []struct {
			s string
			n int
		}{{heart, 20}, {family, 10}, {thumb, 10}} {
			if n := strings.Count(all.String(), c.s); n != c.n {
				t.Fatalf("width %d: %q shown %d times; want %d (a cluster split across rows or lost)", w, c.s, n, c.n)
			}
		}
	}
}

// On a terminal that did not say it draws grapheme clusters (no answer to
// the mode 2027 query), the editor measures code point by code point as
// such a terminal draws and Bubble Tea measures: a ZWJ family takes six
// columns, a thumb with its skin tone four. The answer switches it.
func TestEditorWidthFollowsTheTerminal(t *testing.T) {
	const family = "👨‍👩‍👧"
	m, _, _ := sized(t, 30, 24, Options{})
	press(&m.input, strings.Repeat(family, 8))
	rows := func() int { return len(m.input.Lines(30, 100)) }
	if n := rows(); n != 2 {
		t.Fatalf("8 families of 6 columns at 30 columns: %d rows; want 2", n)
	}
	m.Update(tea.ModeReportMsg{Mode: ansi.ModeUnicodeCore, Value: ansi.ModeReset})
	if rows() != 1 {
		t.Fatalf("after the terminal's mode 2027 answer: %d rows; want 1 (8 families of 2 columns)", rows())
	}
	m2, _, _ := sized(t, 30, 24, Options{})
	m2.Update(tea.ModeReportMsg{Mode: ansi.ModeUnicodeCore, Value: ansi.ModeNotRecognized})
	if clusterWidths.Load() {
		t.Fatal("a terminal that does not know mode 2027 was taken to draw clusters")
	}
}

// Every width outside the input follows the terminal's rule too: a reply
// wraps, a status line truncates and output hard-wraps by code points
// until the terminal answers the mode 2027 query, by clusters after.
func TestWidthsFollowTheTerminal(t *testing.T) {
	const family, thumb = "👨‍👩‍👧", "👍🏽"
	text := strings.Repeat("ab "+family+thumb+" ", 6)
	check := func(want, per int) {
		t.Helper()
		if got := strWidth(family + thumb); got != want {
			t.Fatalf("a family and a thumb measure %d columns; want %d", got, want)
		}
		for _, l := range wrapLines(text, 20) {
			if w := strings.Count(l, family)*per + strings.Count(l, thumb)*(want-per) + strings.Count(l, "ab")*2 + strings.Count(l, " "); w > 20 {
				t.Fatalf("a wrapped row of %d columns at 20: %q", w, l)
			}
		}
		if got := strings.Count(strings.Join(wrapLines(text, 20), ""), family); got != 6 {
			t.Fatalf("wrapping kept %d of 6 families", got)
		}
		for _, n := range []int{5, 8} { // 5: 10 columns as clusters, 30 as code points
			if got := strWidth(truncate(strings.Repeat(family, n), 12, "…")); got > 12 {
				t.Fatalf("%d families truncated to 12 columns: %d", n, got)
			}
		}
		for _, l := range strings.Split(hardwrap(strings.Repeat(family, 8), 12, true), "\n") {
			if got := strWidth(l); got > 12 {
				t.Fatalf("hard-wrapped to 12 columns: a row of %d", got)
			}
		}
		if got := strings.Count(truncate(strings.Repeat(family, 8), 12, ""), family); got != 12/per {
			t.Fatalf("12 columns hold %d families; want %d", got, 12/per)
		}
	}
	m, _, _ := sized(t, 30, 24, Options{})
	check(10, 6) // code points: 6 + 4
	m.Update(tea.ModeReportMsg{Mode: ansi.ModeUnicodeCore, Value: ansi.ModeSet})
	check(4, 2) // clusters: 2 + 2
	New(Options{})
	check(10, 6)
}

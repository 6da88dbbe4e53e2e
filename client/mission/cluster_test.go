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

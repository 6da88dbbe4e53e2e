//go:build unix

package mission

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// coloured counts the cells of the emulator, scrollback and screen, drawn
// with a foreground, background or underline colour.
func (v *vterm) coloured() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := 0
	for y := range v.em.ScrollbackLen() {
		for x := range v.em.Width() {
			if c := v.em.ScrollbackCellAt(x, y); c != nil && (c.Style.Fg != nil || c.Style.Bg != nil || c.Style.UnderlineColor != nil) {
				n++
			}
		}
	}
	for y := range v.em.Height() {
		for x := range v.em.Width() {
			if c := v.em.CellAt(x, y); c != nil && (c.Style.Fg != nil || c.Style.Bg != nil || c.Style.UnderlineColor != nil) {
				n++
			}
		}
	}
	return n
}

// TestNoColor: with NO_COLOR set to any non-empty value (no-color.org), a
// turn whose reply has a heading and code is drawn without a single
// coloured cell; without it, the same turn has colour (so the count can
// tell). NO_COLOR=yes is a value a boolean parser refuses.
func TestNoColor(t *testing.T) {
	reply := "# Heading\n\nsome `code` and **bold** text\n\n```go\nfunc main() { return 42 }\n```\n"
	for _, c := range []struct {
		name string
		env  []string
		want bool // coloured
	}{
		{"colour", nil, true},
		{"NO_COLOR=yes", []string{"NO_COLOR=yes"}, false},
		{"NO_COLOR=0", []string{"NO_COLOR=0"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{clienttest.Response(clienttest.Text(reply))}})
			v := startVTEnv(t, ws, c.env, 80, 24, "--prompt", "show me")
			v.waitScreen("turn completed")
			if code := v.exitCode(); code != 0 {
				t.Fatalf("exit %d:\n%s", code, v.dump())
			}
			if flat := v.flat(); !strings.Contains(flat, "Heading") || !strings.Contains(flat, "func main() { return 42 }") {
				t.Errorf("the reply is not shown whole:\n%s", v.dump())
			}
			if n := v.coloured(); (n > 0) != c.want {
				t.Errorf("%d coloured cells; want coloured=%t:\n%s", n, c.want, v.dump())
			}
		})
	}
}

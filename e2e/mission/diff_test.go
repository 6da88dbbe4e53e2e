//go:build unix

package mission

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// An edit that ran without a question (approval auto: no approval showed
// its change) shows its change under its line, live and once resumed: the
// removed line red, the added ones green, collapsed to the first lines
// with Ctrl-O for the rest, its secret redacted, at 80 and 30 columns.
func TestAutoEditShowsTheDiff(t *testing.T) {
	const token = "ghp_" + "Zq8Xw3Lm9Vt2Rk7Np4Hs6Jd1Fb5Gc0Ya8Ue3"
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
				Extra: "[tools]\napproval = \"auto\"\n",
				Responses: [][]clienttest.Step{
					clienttest.Response(clienttest.ToolCall("edit_file", map[string]any{"path": "notes.txt", "old": "beta-old",
						"new": "gamma-1\ngamma-2\ngamma-3\ngamma-4 " + token})),
					clienttest.Response(clienttest.Text("edited-it")),
				}})
			file := filepath.Join(ws.Cwd, "notes.txt")
			ws.WriteFile(t, file, "alpha\nbeta-old\nomega\n")
			check := func(v *vterm, when string) {
				t.Helper()
				if strings.Contains(v.flat(), "approve?") {
					t.Fatalf("%s: the edit asked under auto:\n%s", when, v.dump())
				}
				removed, added := v.fgOf("│ - beta-old"), v.fgOf("│ + gamma-1")
				if removed == nil || added == nil || removed == added {
					t.Fatalf("%s: the change is not shown under the call, removed and added lines coloured apart (%v, %v):\n%s", when, removed, added, v.dump())
				}
				if !strings.Contains(v.flat(), "2 more lines") || strings.Contains(v.flat(), "gamma-3") {
					t.Fatalf("%s: the change is not collapsed:\n%s", when, v.dump())
				}
				v.typeText("\x0f") // Ctrl-O
				v.waitWords("gamma-4")
				v.waitIdle("fixture-model")
				v.mu.Lock()
				raw := string(v.raw)
				v.mu.Unlock()
				if strings.Contains(raw, token[:12]) || strings.Contains(v.flat(), token[:12]) {
					t.Fatalf("%s: the secret in the change reached the terminal:\n%s", when, v.dump())
				}
			}
			live := startVT(t, ws, cols, 24)
			live.waitScreen("fixture-model")
			live.typeText("edit the notes\r")
			live.waitIdle("turn completed")
			if got := readFile(t, file); !strings.Contains(got, "gamma-1") {
				t.Fatalf("the edit did not run: %q\n%s", got, live.dump())
			}
			check(live, "live")
			live.typeText("/quit\r")
			if code := live.exitCode(); code != 0 {
				t.Fatalf("exit %d after /quit:\n%s", code, live.dump())
			}
			resumed := startVT(t, ws, cols, 24, "--continue")
			resumed.waitIdle("resumed session")
			resumed.waitIdle("fixture-model")
			check(resumed, "resumed")
		})
	}
}

// fgOf is the foreground colour of the first cell of the first row,
// scrollback then screen, that holds s; nil when no row does or the cell
// has none.
func (v *vterm) fgOf(s string) color.Color {
	v.mu.Lock()
	defer v.mu.Unlock()
	type cellAt func(x int) (string, color.Color)
	var rows []cellAt
	for y := range v.em.ScrollbackLen() {
		rows = append(rows, func(x int) (string, color.Color) {
			if c := v.em.ScrollbackCellAt(x, y); c != nil {
				return c.Content, c.Style.Fg
			}
			return "", nil
		})
	}
	for y := range v.em.Height() {
		rows = append(rows, func(x int) (string, color.Color) {
			if c := v.em.CellAt(x, y); c != nil {
				return c.Content, c.Style.Fg
			}
			return "", nil
		})
	}
	for _, row := range rows {
		var text strings.Builder
		var fg []color.Color // of each byte of text
		for x := range v.em.Width() {
			c, f := row(x)
			if c == "" {
				c = " "
			}
			text.WriteString(c)
			for range len(c) {
				fg = append(fg, f)
			}
		}
		if i := strings.Index(text.String(), s); i >= 0 {
			// The first cell past the indent's bar and space.
			return fg[i+len("│ ")]
		}
	}
	return nil
}

// With NO_COLOR the change is shown without a coloured cell.
func TestAutoEditDiffNoColor(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
		Extra: "[tools]\napproval = \"auto\"\n",
		Responses: [][]clienttest.Step{
			clienttest.Response(clienttest.ToolCall("edit_file", map[string]any{"path": "notes.txt", "old": "beta-old", "new": "gamma-1"})),
			clienttest.Response(clienttest.Text("edited-it")),
		}})
	ws.WriteFile(t, filepath.Join(ws.Cwd, "notes.txt"), "beta-old\n")
	v := startVTEnv(t, ws, []string{"NO_COLOR=1"}, 80, 24, "--prompt", "edit the notes")
	v.waitScreen("turn completed")
	if code := v.exitCode(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, v.dump())
	}
	if flat := v.flat(); !strings.Contains(flat, "│ - beta-old") || !strings.Contains(flat, "│ + gamma-1") {
		t.Fatalf("the change is not shown:\n%s", v.dump())
	}
	if n := v.coloured(); n != 0 {
		t.Fatalf("%d coloured cells under NO_COLOR:\n%s", n, v.dump())
	}
}

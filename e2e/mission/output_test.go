//go:build unix

package mission

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// A tool call's output shows under its line, collapsed to its first lines
// with how many more there are, its secrets redacted and its escape
// sequences visible, never written to the terminal; Ctrl-O prints it whole,
// wrapped to the screen as it is after a resize.
func TestToolOutputCollapsedThenWhole(t *testing.T) {
	const token = "ghp_" + "Zq8Xw3Lm9Vt2Rk7Np4Hs6Jd1Fb5Gc0Ya8Ue3"
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "line-%02d of the file\n", i)
	}
	b.WriteString("token = " + token + " \x1b]0;owned\x07 end-of-file-" + strings.Repeat("z", 40) + "\n")
	for _, size := range []struct{ cols, rows, to int }{{80, 24, 30}, {30, 24, 80}} {
		t.Run(fmt.Sprintf("%dx%d to %d", size.cols, size.rows, size.to), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.ToolCall("read_file", map[string]any{"path": "notes.txt"})),
				clienttest.Response(clienttest.Text("read-it")),
			}})
			ws.WriteFile(t, filepath.Join(ws.Cwd, "notes.txt"), b.String())
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("read the notes\r")
			v.waitIdle("turn completed")
			all := strings.Join(v.all(), "\n")
			if !strings.Contains(all, "│") || !strings.Contains(all, "line-01") || !strings.Contains(all, "line-04") ||
				strings.Contains(all, "line-05") || !strings.Contains(v.flat(), "7 more lines") {
				t.Fatalf("the output is not collapsed under the call:\n%s", v.dump())
			}
			v.resize(size.to, size.rows)
			v.waitIdle("turn completed")
			v.typeText("\x0f") // Ctrl-O
			v.waitWords("line-10")
			v.waitIdle("fixture-model")
			flat := strings.ReplaceAll(strings.Join(strings.Fields(strings.Join(v.all(), "")), ""), "│", "")
			if !strings.Contains(flat, "end-of-file-"+strings.Repeat("z", 40)) || !strings.Contains(flat, "␛]0;owned␇") {
				t.Fatalf("Ctrl-O did not print the whole output:\n%s", v.dump())
			}
			for _, r := range v.all() {
				if len([]rune(r)) > size.to && strings.Contains(r, "│") {
					t.Fatalf("a row wider than %d columns: %q\n%s", size.to, r, v.dump())
				}
			}
			v.mu.Lock()
			raw := string(v.raw)
			v.mu.Unlock()
			if strings.Contains(raw, token[:12]) || strings.Contains(raw, "\x1b]0;owned") || len(v.titles) != 0 {
				t.Fatalf("the secret or the escape sequence reached the terminal (titles %q)", v.titles)
			}
		})
	}
}

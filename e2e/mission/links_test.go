//go:build unix

package mission

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// Links in a reply reach the terminal as OSC 8 hyperlinks ([text](url)
// and bare URLs, http and https), asserted on the bytes written; a link
// whose URL holds an escape sequence is shown as text and never forms
// one; under NO_COLOR and on a dumb terminal no hyperlink is written, and
// the text reads the same. At 80 and at 30 columns.
func TestRepliesLinkAsHyperlinks(t *testing.T) {
	reply := "Read [the guide](https://example.com/guide) or https://example.org/x_y. " +
		"Not [this](https://e.test/\x1b]0;pwned\x07) nor [that](javascript:alert(1))."
	for _, c := range []struct {
		name  string
		env   []string
		links bool
	}{
		{"80", nil, true}, {"30", nil, true},
		{"NO_COLOR", []string{"NO_COLOR=1"}, false}, {"dumb", []string{"TERM=dumb"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Text(reply)),
			}})
			cols := 80
			if c.name == "30" {
				cols = 30
			}
			v := startVTEnv(t, ws, c.env, cols, 24)
			v.waitScreen("fixture-model")
			v.typeText("links please\r")
			v.waitIdle("turn completed")
			v.mu.Lock()
			raw := string(v.raw)
			titles := fmt.Sprint(v.titles)
			v.mu.Unlock()
			for _, target := range []string{"https://example.com/guide", "https://example.org/x_y"} {
				if got := strings.Contains(raw, "\x1b]8;;"+target+"\x07"); got != c.links {
					t.Errorf("hyperlink to %s written: %v; want %v", target, got, c.links)
				}
			}
			if n := strings.Count(raw, "\x1b]8;;h"); c.links && n == 0 || !c.links && strings.Contains(raw, "\x1b]8;") {
				t.Errorf("%d hyperlinks written", n)
			}
			for _, bad := range []string{"\x1b]0;pwned", "]8;;javascript", "]8;;https://e.test"} {
				if strings.Contains(raw, bad) {
					t.Errorf("the terminal got %q", bad)
				}
			}
			if strings.Contains(titles, "pwned") {
				t.Errorf("the window title was set: %s", titles)
			}
			if !strings.Contains(v.flat(), "the guide") || !strings.Contains(strings.ReplaceAll(v.flat(), " ", ""), "https://example.org/x_y") {
				t.Errorf("the text of the links is not shown:\n%s", v.dump())
			}
		})
	}
}

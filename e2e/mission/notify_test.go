//go:build unix

package mission

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// An approval that starts waiting notifies: a desktop notification (OSC 9)
// on a terminal that shows one, the bell elsewhere, written to the
// terminal once and never as the model's text.
func TestApprovalNotifies(t *testing.T) {
	for _, c := range []struct {
		env        []string
		cols, to   int
		want, none string
	}{
		{[]string{"TERM_PROGRAM=WezTerm"}, 80, 30, "\x1b]9;magi-code: an approval waits\a", "no-such"},
		{[]string{"TERM_PROGRAM=WezTerm", "TMUX=/tmp/tmux-1/default,1,0"}, 30, 80, "\a", "\x1b]9;"},
		{nil, 30, 80, "\a", "\x1b]9;"},
	} {
		t.Run(fmt.Sprintf("%v %d", c.env, c.cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Shell("make \x1b]9;forged\x07 test")),
				clienttest.Response(clienttest.Text("ok")),
			}})
			v := startVTEnv(t, ws, c.env, c.cols, 24)
			v.waitScreen("fixture-model")
			v.typeText("build it\r")
			v.waitIdle("approve?")
			v.resize(c.to, 24)
			v.waitIdle("approve?")
			v.mu.Lock()
			raw := string(v.raw)
			v.mu.Unlock()
			if strings.Count(raw, c.want) != 1 || strings.Contains(raw, c.none) || strings.Contains(raw, "forged\a") {
				t.Fatalf("the terminal got %d notifications %q (want one; none of %q): %q", strings.Count(raw, c.want), c.want, c.none, raw)
			}
			v.answer("n")
			v.waitIdle("turn completed")
		})
	}
}

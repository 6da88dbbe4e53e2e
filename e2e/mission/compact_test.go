//go:build unix

package mission

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// /compact summarises the conversation now: the compaction shows as an
// activity, the summary is not shown as a reply, and the session's history
// holds the compaction (a resumed session shows it). At 80 and 30 columns.
func TestCompactCommand(t *testing.T) {
	for _, size := range []struct{ cols, rows int }{{80, 24}, {30, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Text("first-reply")),
				clienttest.Response(clienttest.Text("SUMMARY-OF-IT")),
			}})
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("hello\r")
			v.waitWords("first-reply")
			v.waitCount("turn completed", 1)
			v.typeText("/compact keep the names\r")
			v.waitWords("compacting the conversation")
			v.waitCount("turn completed", 2)
			flat := v.flat()
			if !strings.Contains(flat, "compaction") || strings.Contains(flat, "you› /compact") {
				t.Fatalf("the compaction is not shown as one:\n%s", v.dump())
			}
			v.typeText("/quit\r")
			if code := v.exitCode(); code != 0 {
				t.Fatalf("exit %d", code)
			}
			v = startVT(t, ws, size.cols, size.rows, "--continue")
			v.waitScreen("fixture-model")
			v.waitWords("(compacted) SUMMARY-OF-IT")
		})
	}
}

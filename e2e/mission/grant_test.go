//go:build unix

package mission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// The approval offers "[a] allow this exact command for the rest of the
// session". Answered with a, the command runs; the same command asked for
// again later runs without an approval; another spelling of it, and a
// longer command that begins with it, ask again. At 80 and at 30 columns.
func TestSessionGrantOfAnExactCommand(t *testing.T) {
	const cmd = "echo granted >> log.txt"
	for _, size := range []struct{ cols, rows int }{{80, 24}, {30, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Shell(cmd)), clienttest.Response(clienttest.Text("reply-one")),
				clienttest.Response(clienttest.Shell(cmd)), clienttest.Response(clienttest.Text("reply-two")),
				clienttest.Response(clienttest.Shell("echo  granted >> log.txt")), clienttest.Response(clienttest.Text("reply-three")),
				clienttest.Response(clienttest.Shell(cmd + "; touch extra")), clienttest.Response(clienttest.Text("reply-four")),
			}})
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("first\r")
			v.waitIdle("approve?")
			if !strings.Contains(v.flat(), "[a] allow this exact command for the rest of the session") {
				t.Fatalf("the approval does not offer the session grant:\n%s", v.dump())
			}
			v.answer("a")
			v.waitWords("reply-one")
			v.waitWords("allowed for this session:")
			v.waitCount("turn completed", 1)

			v.typeText("second\r")
			v.waitWords("reply-two")
			v.waitCount("turn completed", 2)
			if strings.Count(v.flat(), "approve?") != 0 {
				t.Fatalf("the granted command asked again:\n%s", v.dump())
			}
			if log, err := os.ReadFile(filepath.Join(ws.Cwd, "log.txt")); err != nil || string(log) != "granted\ngranted\n" {
				t.Fatalf("log.txt %q, %v; want the command run twice:\n%s", log, err, v.dump())
			}

			for i, next := range []struct{ prompt, reply string }{{"third", "reply-three"}, {"fourth", "reply-four"}} {
				v.typeText(next.prompt + "\r")
				v.waitIdle("approve?")
				v.answer("n")
				v.waitWords(next.reply)
				v.waitCount("turn completed", 3+i)
			}
			if log, _ := os.ReadFile(filepath.Join(ws.Cwd, "log.txt")); string(log) != "granted\ngranted\n" || clienttest.FileExists(filepath.Join(ws.Cwd, "extra")) {
				t.Fatalf("a command the grant does not cover ran: log.txt %q:\n%s", log, v.dump())
			}
		})
	}
}

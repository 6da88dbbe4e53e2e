//go:build unix

package mission

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// approvalCommand is a shell command of n words of 26 letters after
// "echo begin": at 30 columns each word takes a row of the request.
func approvalCommand(n int) string {
	words := []string{"echo begin"}
	for i := range n {
		words = append(words, fmt.Sprintf("w%02d%s", i, strings.Repeat("x", 23)))
	}
	return strings.Join(words, " ") + " end-of-request"
}

// requestOnScreen checks that the rows show the request from its start
// to its end, once, and the keys that answer it below.
func requestOnScreen(t *testing.T, rows []string, command, dump string) {
	t.Helper()
	flat := strings.Join(strings.Fields(strings.Join(rows, " ")), "")
	want := strings.ReplaceAll(command, " ", "")
	if n := strings.Count(flat, want); n != 1 {
		t.Fatalf("the screen shows the whole request %d times; want once:\n%s", n, dump)
	}
	start := strings.Index(flat, "shell:echobegin")
	keys := strings.LastIndex(flat, "[n]deny")
	if start < 0 || keys < start {
		t.Fatalf("the request's start is not on the screen above its keys:\n%s", dump)
	}
}

// An approval showing while the terminal is resized is laid out again at
// the new size: its start stays on the screen, the request is shown
// whole once, its keys below, at 80x24 to 30 columns and back and to a
// short screen; then the answer still works.
func TestApprovalLaidOutAgainAfterAResize(t *testing.T) {
	command := approvalCommand(2)
	for _, sizes := range [][][2]int{{{30, 24}}, {{30, 20}, {80, 24}}, {{30, 12}}, {{80, 10}, {30, 14}}} {
		t.Run(fmt.Sprint(sizes), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Shell(command)),
				clienttest.Response(clienttest.Text("ok")),
			}})
			tt := startTmux(t, ws, 80, 24)
			tt.waitScreen("fixture-model")
			tt.typeText("run it")
			tt.key("Enter")
			tt.waitIdle("denied automatically")
			for _, s := range sizes {
				tt.resize(s[0], s[1])
			}
			tt.waitIdle("[n] deny")
			requestOnScreen(t, tt.screen(), command, tt.dump())
			all := strings.Join(strings.Fields(strings.Join(tt.all(), " ")), "")
			if n := strings.Count(all, "echobegin"); n != 1 {
				t.Fatalf("the request's start shows %d times on the screen and in the history; want once:\n%s", n, tt.dump())
			}
		})
	}
}

// The two limits of the live region's row budget on a narrow screen. An
// approval may take all but one row of the screen (30x24: 23 rows, the
// status bar one of them). Its rows at 30 columns: "approve? (N bytes)",
// "shell: echo begin", one a word, "end-of-request", the keys (two rows),
// the time left and the session grant's key (two rows): words+8. So 14
// words fill the budget exactly: the request is shown whole in the live
// region and y allows it. At 15 it is
// printed above, whole, and cannot be on the screen whole with the keys:
// y does nothing until the pager (v) has shown its last line.
func TestApprovalAtTheRowBudget(t *testing.T) {
	for _, c := range []struct {
		words   int
		printed bool
	}{{14, false}, {15, true}} {
		t.Run(fmt.Sprint(c.words), func(t *testing.T) {
			command := approvalCommand(c.words)
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Shell(command)),
				clienttest.Response(clienttest.Text("ok")),
			}})
			v := startVT(t, ws, 30, 24)
			v.waitScreen("fixture-model")
			v.typeText("run it\r")
			v.waitIdle("denied")
			screen := strings.Join(strings.Fields(strings.Join(v.screen(), " ")), " ")
			if got := strings.Contains(screen, "printed above"); got != c.printed {
				t.Fatalf("%d words: printed above %v, want %v:\n%s", c.words, got, c.printed, v.dump())
			}
			if !c.printed {
				requestOnScreen(t, v.screen(), command, v.dump())
				v.answer("y")
				v.waitIdle("turn completed")
				return
			}
			flat := strings.Join(strings.Fields(strings.Join(v.all(), " ")), "")
			if strings.Count(flat, strings.ReplaceAll(command, " ", "")) != 1 {
				t.Fatalf("the request is not printed above whole once:\n%s", v.dump())
			}
			v.answer("y") // not shown whole on the screen: y answers nothing
			v.typeText("v")
			v.waitScreen("lines 1-")
			if !strings.Contains(strings.Join(v.screen(), "\n"), "shell: echo begin") {
				t.Fatalf("the pager does not open at the request's start:\n%s", v.dump())
			}
			v.typeText("G") // End
			v.waitScreen("end-of-request")
			v.typeText("y")
			v.waitIdle("turn completed")
			if !strings.Contains(strings.Join(v.all(), "\n"), "allowed: ") {
				t.Fatalf("y after the pager did not allow:\n%s", v.dump())
			}
		})
	}
}

// A command the backend's summary cuts (echo harmless, 1,000 spaces, then
// what really runs) is shown whole before the answer, the spaces
// collapsed visibly and its size said, and y runs it: the app gets the
// whole request (the approval.request capability). At 80 and 30 columns.
func TestLongCommandShownWholeAndAllowedByY(t *testing.T) {
	command := "echo harmless" + strings.Repeat(" ", 1000) + "; touch pwned"
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Shell(command)),
				clienttest.Response(clienttest.Text("ok")),
			}})
			v := startVT(t, ws, cols, 24)
			v.waitScreen("fixture-model")
			v.typeText("run it\r")
			v.waitIdle("denied")
			flat := strings.Join(strings.Fields(strings.Join(v.screen(), " ")), " ")
			for _, want := range []string{"␠×1000 ; touch pwned", "(1.0 KiB)"} {
				if !strings.Contains(flat, want) {
					t.Fatalf("the approval does not show %q before the answer:\n%s", want, v.dump())
				}
			}
			if strings.Contains(flat, "cut this request") {
				t.Fatalf("the whole request still reads as cut:\n%s", v.dump())
			}
			v.answer("y")
			v.waitIdle("turn completed")
			if !clienttest.FileExists(filepath.Join(ws.Cwd, "pwned")) {
				t.Fatalf("y did not run the command shown:\n%s", v.dump())
			}
		})
	}
}

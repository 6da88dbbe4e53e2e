//go:build unix

package mission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client/clienttest"
)

// /approval auto restarts the backend with that mode and reopens the
// session: the next command runs without a question, and /status says
// auto; /approval ask restarts again and the next command asks. The
// settings file is not changed. At 80 and at 30 columns.
func TestApprovalModeSwitch(t *testing.T) {
	for _, size := range []struct{ cols, rows int }{{80, 24}, {30, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
				Extra: "[tools]\napproval = \"ask\"\nunsandboxed_auto = true\n",
				// Each backend replays the script from its start.
				Responses: [][]clienttest.Step{
					clienttest.Response(clienttest.Shell("touch marker")), clienttest.Response(clienttest.Text("reply-done")),
				}})
			marker := filepath.Join(ws.Cwd, "marker")
			settings := readFile(t, filepath.Join(ws.Home, "settings.toml"))
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("/approval auto\r")
			v.waitWords("backend restarted")
			v.typeText("first\r")
			v.waitWords("reply-done")
			v.waitCount("turn completed", 1)
			if strings.Contains(v.flat(), "approve?") || !clienttest.FileExists(marker) {
				t.Fatalf("under auto the command asked or did not run:\n%s", v.dump())
			}
			if err := os.Remove(marker); err != nil {
				t.Fatal(err)
			}
			v.typeText("/status\r")
			v.waitWords("approval mode auto")

			v.typeText("/approval ask\r")
			v.waitWords("approval mode ask for this run")
			v.waitCount("backend restarted", 2)
			v.typeText("second\r")
			v.waitIdle("approve?")
			v.answer("n")
			v.waitCount("reply-done", 2)
			if clienttest.FileExists(marker) {
				t.Fatalf("a denied command ran:\n%s", v.dump())
			}
			if strings.Count(v.flat(), "you› first") != 1 {
				t.Fatalf("the session was not reopened as it was:\n%s", v.dump())
			}
			if got := readFile(t, filepath.Join(ws.Home, "settings.toml")); got != settings {
				t.Fatalf("the settings changed:\n%s", got)
			}
		})
	}
}

// waitCount waits until the scrollback and screen show s n times or more.
func (v *vterm) waitCount(s string, n int) {
	v.t.Helper()
	deadline := time.Now().Add(clienttest.HangGuard)
	for strings.Count(v.flat(), s) < n {
		if time.Now().After(deadline) {
			v.t.Fatalf("the terminal never showed %q %d times:\n%s", s, n, v.dump())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

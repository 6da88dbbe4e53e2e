//go:build unix

package mission

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// Without an OS sandbox (here turned off in the settings; a kernel
// without Landlock reports "unavailable" through the same status field),
// the person sees it: the status bar says "no sandbox" from the start,
// also at 30 columns where it drops everything else but the readiness,
// and an approval says that the commands it allows run unconfined.
// Under auto the shell command asks, as without a sandbox it must.
func TestNoSandboxShown(t *testing.T) {
	for _, size := range []struct{ cols, rows int }{{80, 24}, {30, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
				Approval: "auto",
				Extra:    "[tools.sandbox]\nmode = \"off\"\n",
				Responses: [][]clienttest.Step{
					clienttest.Response(clienttest.Shell("touch marker")), clienttest.Response(clienttest.Text("reply-done")),
				}})
			v := startVT(t, ws, size.cols, size.rows)
			v.waitIdle("ready")
			if bar := lastRow(v.screen()); !strings.Contains(bar, "no sandbox") {
				t.Fatalf("the status bar %q does not say no sandbox:\n%s", bar, v.dump())
			}
			v.typeText("touch it\r")
			v.waitIdle("approve?")
			if !strings.Contains(v.flat(), "no OS sandbox: commands you allow run with all your permissions") {
				t.Fatalf("the approval does not say that nothing confines the command:\n%s", v.dump())
			}
			v.answer("n")
			v.waitIdle("reply-done")
			if clienttest.FileExists(filepath.Join(ws.Cwd, "marker")) {
				t.Fatalf("a denied command ran:\n%s", v.dump())
			}
		})
	}
}

// With the OS sandbox, neither the status bar nor an approval says so.
func TestSandboxNotFlagged(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
		Approval: "ask",
		Responses: [][]clienttest.Step{
			clienttest.Response(clienttest.Shell("touch marker")), clienttest.Response(clienttest.Text("reply-done")),
		}})
	v := startVT(t, ws, 80, 24)
	v.waitIdle("fixture-model")
	v.typeText("/status\r")
	v.waitWords("none reported yet")
	if !strings.Contains(v.flat(), "sandbox workspace-write") {
		t.Skipf("no OS sandbox on this machine:\n%s", v.dump())
	}
	v.typeText("touch it\r")
	v.waitIdle("approve?")
	if strings.Contains(v.flat(), "no sandbox") || strings.Contains(v.flat(), "no OS sandbox") {
		t.Fatalf("no sandbox shown where the sandbox is in force:\n%s", v.dump())
	}
	v.answer("n")
	v.waitIdle("reply-done")
}

// lastRow is the last row of screen that is not blank: the status bar.
func lastRow(screen []string) string {
	last := len(screen) - 1
	for last > 0 && screen[last] == "" {
		last--
	}
	return screen[last]
}

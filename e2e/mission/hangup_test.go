//go:build unix

package mission

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/proctest"
)

// When its terminal goes away (the pseudo-terminal's master closes) during
// a turn, the app ends with 129 and the turn's command (a shell and its
// background child) with it, whether SIGHUP is delivered or ignored: under
// nohup, or started by a parent that ignored it (the disposition is
// inherited), the signal never comes and the app must see the terminal go.
// A SIGHUP while the terminal lives ends it the same way.
func TestTerminalGoneEndsTheApp(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set SIGHUP's disposition")
	}
	closeTerminal := func(v *vterm) error { return v.tty.Close() }
	sendHUP := func(v *vterm) error { return v.cmd.Process.Signal(syscall.SIGHUP) }
	for _, c := range []struct {
		name, trap string
		end        func(v *vterm) error
	}{
		{"SIGHUP delivered", ":", closeTerminal},
		{"SIGHUP ignored", "trap '' HUP", closeTerminal}, // what nohup does, without its redirection of a terminal's output
		{"SIGHUP while the terminal lives", ":", sendHUP},
	} {
		t.Run(c.name, func(t *testing.T) {
			tok := proctest.NewToken(t)
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "auto", Extra: "unsandboxed_auto = true\n", Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Shell("sleep " + tok + " & echo started > started; wait")),
				clienttest.Response(clienttest.Text("never-reached")),
			}})
			cmd := exec.Command("sh", "-c", c.trap+`; exec "$0"`, clienttest.Binary(t))
			var v *vterm
			withSIGHUPCaught(func() { v = startVTCmd(t, ws, cmd, nil, 80, 24) })
			v.waitIdle("fixture-model")
			v.typeText("go\r")
			clienttest.WaitFor(t, "the command to start", func() bool {
				b, err := os.ReadFile(filepath.Join(ws.Cwd, "started"))
				return err == nil && string(b) == "started\n"
			})
			// The command's shell and its background sleep, found by the
			// token in their command lines: a command confined in a PID
			// namespace of its own would write other numbers than these.
			pids := proctest.Marked(t, tok, 2)
			if ignored, known := sigHUPIgnored(t, cmd.Process.Pid); known && ignored != (c.trap != ":") {
				t.Fatalf("the app runs with SIGHUP ignored %t; this case wants %t", ignored, !ignored)
			}
			if err := c.end(v); err != nil {
				t.Fatal(err)
			}
			if code := v.exitCode(); code != 129 {
				t.Fatalf("exit %d; want 129 (128 + SIGHUP)", code)
			}
			proctest.WaitGone(t, pids...)
		})
	}
}

// withSIGHUPCaught runs start while this process catches SIGHUP: a child
// started then begins with SIGHUP at its default even when this process
// was started with it ignored (exec keeps an ignored disposition and
// resets a caught one), unless the child ignores it itself.
func withSIGHUPCaught(start func()) {
	caught := make(chan os.Signal, 1)
	signal.Notify(caught, syscall.SIGHUP)
	defer signal.Stop(caught)
	start()
}

// sigHUPIgnored reports whether process pid ignores SIGHUP (SigIgn in
// /proc/PID/status); known is false without /proc.
func sigHUPIgnored(t *testing.T, pid int) (ignored, known bool) {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatalf("SigIgn %q", v)
			}
			return mask&(1<<(uint(syscall.SIGHUP)-1)) != 0, true
		}
	}
	t.Fatalf("no SigIgn in /proc/%d/status", pid)
	return false, false
}

//go:build unix

package runner

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/proctest"
	"github.com/magi-code/magi-code/protocol"
)

// hangingHook is a hook command that records its shell's pid (its process
// group: hooks run in their own group) in pidFile, starts a background
// grandchild and then hangs far longer than any test may wait.
func hangingHook(pidFile string) string {
	return "echo $$ > " + clienttest.Quote(pidFile) + "; sleep 600 & sleep 600"
}

// readPidFile waits until the hook wrote its pid and returns it.
func readPidFile(t *testing.T, path string) int {
	t.Helper()
	var pid int
	clienttest.WaitFor(t, "hook pid in "+path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	return pid
}

// killGroup is the test's own cleanup, for a failing run: the hook's group
// must never outlive the test.
func killGroup(t *testing.T, pidFile string) {
	t.Cleanup(func() {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	})
}

// TestHookCleanup: a hook still running at turn.cancel, shutdown or EOF is
// killed with its whole process group (a background grandchild included),
// whatever its event. turn.cancel ends the run cancelled without waiting
// for the hook; shutdown and EOF drain and exit 0 (not 1 at the closing
// deadline) with nothing on stderr. The stop hook is the case that used to
// run without the turn's cancellation.
func TestHookCleanup(t *testing.T) {
	t.Parallel()
	type end int
	const (
		byCancel end = iota
		byShutdown
		byEOF
	)
	tests := []struct {
		name  string
		event string
		end   end
	}{
		{"stop hook, turn.cancel", "stop", byCancel},
		{"stop hook, shutdown", "stop", byShutdown},
		{"stop hook, EOF", "stop", byEOF},
		{"pre_tool_use hook, turn.cancel", "pre_tool_use", byCancel},
		{"pre_tool_use hook, shutdown", "pre_tool_use", byShutdown},
		{"post_tool_use hook, EOF", "post_tool_use", byEOF},
		{"post_tool_use hook, turn.cancel", "post_tool_use", byCancel},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "hook.pid")
			killGroup(t, pidFile)
			responses := [][]step{{text("the turn is done")}}
			if tc.event != "stop" {
				responses = [][]step{{shell("true")}, {text("after the tool")}}
			}
			settings := script(t, dir, responses...) + "\n[tools]\napproval = \"auto\"\n" +
				hook(tc.event, "", hangingHook(pidFile))
			ch := newChild(t, settings, client.Options{})
			sid := ch.Create().SessionID
			runID, adm := ch.StartTurn(sid, "go")
			pgid := readPidFile(t, pidFile)

			switch tc.end {
			case byCancel:
				if r := ch.Cancel(sid, runID); r.Error != nil {
					t.Fatalf("turn.cancel: %s", r.Raw)
				}
				// The terminal follows the hook's cleanup, not the hook's
				// own end (600 s, past the hang guard).
				r := ch.Finish(sid, runID, adm, nil)
				r.WantOutcome(t, "cancelled", "")
				if d := r.Diagnostics(); len(d) != 0 {
					t.Errorf("diagnostics %q for a cancelled hook", d)
				}
				ch.Shutdown()
			case byShutdown:
				ch.Shutdown()
			case byEOF:
				if err := ch.C.CloseStdin(); err != nil {
					t.Fatal(err)
				}
				ch.WantExit(0)
			}
			// Killed, not left to its 600 s: gone within proctest.Guard.
			proctest.WaitGroupGone(t, pgid)
		})
	}
}

// TestShutdownWhileStreamingWithStopHook: shutdown while a turn streams,
// with a stop hook configured, exits 0 within the closing deadline: the
// cancelled turn starts no stop hook (it used to run one without the turn's
// cancellation, outliving the child, which exited 1).
func TestShutdownWhileStreamingWithStopHook(t *testing.T) {
	t.Parallel()
	for _, end := range []string{"shutdown", "EOF"} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "hook.pid")
			killGroup(t, pidFile)
			settings := script(t, dir, []step{text(strings.Repeat("streaming ", 100)), clienttest.SleepMs(600_000)}) +
				hook("stop", "", hangingHook(pidFile))
			ch := newChild(t, settings, client.Options{})
			sid := ch.Create().SessionID
			runID, _ := ch.StartTurn(sid, "stream")
			var seen []client.Event
			ch.UntilNamed(&seen, runID, protocol.EventMessageDelta)
			if end == "shutdown" {
				ch.Shutdown()
			} else {
				if err := ch.C.CloseStdin(); err != nil {
					t.Fatal(err)
				}
				ch.WantExit(0)
			}
			if clienttest.FileExists(pidFile) {
				pgid := readPidFile(t, pidFile)
				t.Errorf("a cancelled turn started its stop hook (group %d, live members %v)", pgid, proctest.GroupLive(pgid))
			}
		})
	}
}

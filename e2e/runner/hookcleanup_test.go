//go:build unix

package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/proctest"
	"github.com/magi-code/magi-code/protocol"
)

// hangingHook is a hook command that writes pidFile once it has started
// its background grandchild, and then hangs far longer than any test may
// wait. Its processes are marked with tok (proctest.Token): a hook
// confined in a PID namespace of its own counts its processes there, so
// what it could write of itself does not name them here.
func hangingHook(pidFile, tok string) string {
	return "sleep " + tok + " & echo $$ > " + clienttest.Quote(pidFile) + "; sleep " + tok
}

// hookStarted waits until the hook wrote pidFile and returns its processes
// (at least its shell and the background sleep).
func hookStarted(t *testing.T, path, tok string) []int {
	t.Helper()
	clienttest.WaitFor(t, "the hook in "+path, func() bool {
		b, err := os.ReadFile(path)
		return err == nil && strings.HasSuffix(string(b), "\n")
	})
	return proctest.Marked(t, tok, 2) // its shell and background sleep at least
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
			pidFile, tok := filepath.Join(dir, "hook.pid"), proctest.NewToken(t)
			responses := [][]step{{text("the turn is done")}}
			if tc.event != "stop" {
				responses = [][]step{{shell("true")}, {text("after the tool")}}
			}
			settings := script(t, dir, responses...) + "\n[tools]\napproval = \"auto\"\n" +
				hook(tc.event, "", hangingHook(pidFile, tok))
			ch := newChild(t, settings, client.Options{})
			sid := ch.Create().SessionID
			runID, adm := ch.StartTurn(sid, "go")
			pids := hookStarted(t, pidFile, tok)

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
			// Killed, not left to its sleep: gone within proctest.Guard.
			proctest.WaitGone(t, pids...)
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
			pidFile, tok := filepath.Join(dir, "hook.pid"), proctest.NewToken(t)
			settings := script(t, dir, []step{text(strings.Repeat("streaming ", 100)), clienttest.SleepMs(600_000)}) +
				hook("stop", "", hangingHook(pidFile, tok))
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
			if live := proctest.WithArg(tok); clienttest.FileExists(pidFile) || len(live) > 0 {
				t.Errorf("a cancelled turn started its stop hook (live processes %v)", live)
			}
		})
	}
}

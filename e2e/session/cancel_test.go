//go:build unix

package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/proctest"
	"github.com/magi-code/magi-code/protocol"
)

// TestCancelDuringSleep cancels a turn in a long sleep_ms step, and checks
// status while running and after, busy for overlapping work, the kept
// partial reply and stale_run afterwards.
func TestCancelDuringSleep(t *testing.T) {
	t.Parallel()
	// Longer than the redaction holdback, so a delta shows the sleep began.
	partial := strings.Repeat("partial reply ", 100)
	ws := newWorkspace(t, "", response(text(partial), sleepMs(600_000), text(" never")))
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	runID, adm := ch.StartTurn(s.SessionID, "sleep please")
	var evs []client.Event
	ch.UntilNamed(&evs, runID, protocol.EventMessageDelta)

	st := ch.Status()
	if st.State != "running" || st.RunID == nil || *st.RunID != runID || st.SessionID == nil || *st.SessionID != s.SessionID {
		t.Fatalf("status during the run: %+v", st)
	}
	ch.WantError("turn.start", map[string]string{"session_id": s.SessionID, "prompt": "another"}, protocol.CodeBusy)
	ch.WantError("session.create", nil, protocol.CodeBusy)
	ch.WantError("session.open", map[string]string{"session_id": s.SessionID}, protocol.CodeBusy)
	ch.WantError("history.page", map[string]any{"session_id": s.SessionID, "revision": s.Revision, "cursor": nil}, protocol.CodeBusy)
	ch.WantError("turn.cancel", map[string]string{"session_id": s.SessionID, "run_id": "00000000-0000-4000-8000-000000000000"}, protocol.CodeStaleRun)

	r := ch.Cancel(s.SessionID, runID)
	if r.Error != nil || string(r.Result) != `{"cancellation_requested":true}` {
		t.Fatalf("turn.cancel: %s %v", r.Result, r.Error)
	}
	// Idempotent while the run is active; stale_run if it already ended.
	if r := ch.Cancel(s.SessionID, runID); r.Error != nil && r.Error.Code != string(protocol.CodeStaleRun) {
		t.Fatalf("second turn.cancel: %v", r.Error.Code)
	}
	run := ch.Finish(s.SessionID, runID, adm, evs)
	if run.Finished.Outcome != "cancelled" {
		t.Fatalf("run.finished %s", run.Events[len(run.Events)-1].Data)
	}
	if got := run.Reply(); got != partial {
		t.Fatalf("kept reply %q", got)
	}
	for _, m := range run.Messages {
		if !m.Partial {
			t.Fatalf("cancelled reply reconciled as complete")
		}
	}
	ch.noEventsAfter()
	st = ch.Status()
	if st.State != "idle" || st.RunID != nil {
		t.Fatalf("status after the run: %+v", st)
	}
	ch.WantError("turn.cancel", map[string]string{"session_id": s.SessionID, "run_id": runID}, protocol.CodeStaleRun)

	// The cancelled turn keeps its partial reply in history.
	if run.Finished.Revision != nil {
		entries, _, _ := ch.History(s.SessionID, *run.Finished.Revision)
		msgs := messages(entries)
		if len(msgs) < 2 || msgs[1].Kind != "assistant" || msgs[1].Text != partial || !msgs[1].Partial {
			t.Fatalf("history after cancel: %+v", msgs)
		}
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	clienttest.WaitFor(t, path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	return pid
}

// TestCancelDuringShell cancels a turn while the shell tool runs a long
// command with a background grandchild: the run ends cancelled and both
// processes are gone.
func TestCancelDuringShell(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shellPid, bgPid := filepath.Join(dir, "shell.pid"), filepath.Join(dir, "bg.pid")
	// The sleeps are marked: a confined command counts its processes in
	// a PID namespace of its own, so the numbers it writes are its own;
	// the files only say it has started its background sleep.
	tok := proctest.NewToken(t)
	cmd := "echo $$ > " + shellPid + "; sleep " + tok + " & echo $! > " + bgPid + "; sleep " + tok + "; echo done"
	ws := newWorkspace(t, "auto", response(shell(cmd)), response(text("after the tool")))
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	runID, adm := ch.StartTurn(s.SessionID, "run it")
	var evs []client.Event
	ch.UntilNamed(&evs, runID, protocol.EventActivity)
	readPid(t, shellPid)
	readPid(t, bgPid)
	pids := proctest.Marked(t, tok, 2) // the shell and its background sleep at least
	if r := ch.Cancel(s.SessionID, runID); r.Error != nil {
		t.Fatalf("turn.cancel: %s", r.Error.Code)
	}
	run := ch.Finish(s.SessionID, runID, adm, evs)
	if run.Finished.Outcome != "cancelled" {
		t.Fatalf("run.finished %s", run.Events[len(run.Events)-1].Data)
	}
	proctest.WaitGone(t, pids...)
	for _, ev := range run.Events {
		if ev.Name == protocol.EventActivity {
			var a clienttest.Activity
			if err := json.Unmarshal(ev.Data, &a); err != nil {
				t.Fatal(err)
			}
			if a.Kind != "tool" || a.Name != "shell" {
				t.Fatalf("activity %s", ev.Data)
			}
		}
	}
	ch.noEventsAfter()
	if run.Finished.Revision == nil {
		t.Fatalf("run.finished %s", run.Events[len(run.Events)-1].Data)
	}
	entries, complete, _ := ch.History(s.SessionID, *run.Finished.Revision)
	msgs := messages(entries)
	t.Logf("history after the cancelled shell: complete %v, %+v", complete, msgs)
	if len(msgs) < 2 || msgs[0].Kind != "user" || msgs[1].Kind != "activity" {
		t.Fatalf("history after the cancelled shell: %v", kinds(msgs))
	}
}

package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/stages/wire"
)

// nextEvent receives one event of the run, under the hang guard.
func (ch *child) nextEvent() client.Event {
	ch.t.Helper()
	ev, err := ch.c.WaitEvent(ctxGuard(ch.t), func(client.Event) bool { return true })
	if err != nil {
		ch.t.Fatalf("waiting for an event: %v", err)
	}
	return ev
}

// until receives events into *evs until one named name arrives, and
// returns it.
func (ch *child) until(evs *[]client.Event, name string) client.Event {
	ch.t.Helper()
	for {
		ev := ch.nextEvent()
		*evs = append(*evs, ev)
		if ev.Name == name {
			return ev
		}
		if ev.Name == wire.EventRunFinished {
			ch.t.Fatalf("run.finished %s while waiting for %s", ev.Data, name)
		}
	}
}

// finish receives the rest of the run and checks it whole.
func (ch *child) finish(sessionID, runID string, adm *client.Response, evs []client.Event) run {
	ch.t.Helper()
	rest, err := ch.c.CollectRun(ctxGuard(ch.t), runID)
	if err != nil {
		ch.t.Fatalf("collecting run: %v", err)
	}
	return checkRun(ch.t, sessionID, runID, adm, append(evs, rest...))
}

func (ch *child) cancel(sessionID, runID string) *client.Response {
	ch.t.Helper()
	return ch.call("turn.cancel", map[string]string{"session_id": sessionID, "run_id": runID})
}

// TestCancelDuringSleep cancels a turn in a long sleep_ms step, and checks
// status while running and after, busy for overlapping work, the kept
// partial reply and stale_run afterwards.
func TestCancelDuringSleep(t *testing.T) {
	t.Parallel()
	// Longer than the redaction holdback, so a delta shows the sleep began.
	partial := strings.Repeat("partial reply ", 100)
	ws := newWorkspace(t, "", response(text(partial), sleepMs(600_000), text(" never")))
	ch := start(t, ws, client.Options{})
	s := ch.create()
	runID, adm := ch.startTurn(s.SessionID, "sleep please")
	var evs []client.Event
	ch.until(&evs, wire.EventMessageDelta)

	st := ch.status()
	if st.State != "running" || st.RunID == nil || *st.RunID != runID || st.SessionID == nil || *st.SessionID != s.SessionID {
		t.Fatalf("status during the run: %+v", st)
	}
	ch.wantError("turn.start", map[string]string{"session_id": s.SessionID, "prompt": "another"}, wire.CodeBusy)
	ch.wantError("session.create", nil, wire.CodeBusy)
	ch.wantError("session.open", map[string]string{"session_id": s.SessionID}, wire.CodeBusy)
	ch.wantError("history.page", map[string]any{"session_id": s.SessionID, "revision": s.Revision, "cursor": nil}, wire.CodeBusy)
	ch.wantError("turn.cancel", map[string]string{"session_id": s.SessionID, "run_id": "00000000-0000-4000-8000-000000000000"}, wire.CodeStaleRun)

	r := ch.cancel(s.SessionID, runID)
	if r.Error != nil || string(r.Result) != `{"cancellation_requested":true}` {
		t.Fatalf("turn.cancel: %s %v", r.Result, r.Error)
	}
	// Idempotent while the run is active; stale_run if it already ended.
	if r := ch.cancel(s.SessionID, runID); r.Error != nil && r.Error.Code != string(wire.CodeStaleRun) {
		t.Fatalf("second turn.cancel: %v", r.Error.Code)
	}
	run := ch.finish(s.SessionID, runID, adm, evs)
	if run.finished.Outcome != "cancelled" {
		t.Fatalf("run.finished %s", run.events[len(run.events)-1].Data)
	}
	if got := run.reply(); got != partial {
		t.Fatalf("kept reply %q", got)
	}
	for _, m := range run.messages {
		if !m.partial {
			t.Fatalf("cancelled reply reconciled as complete")
		}
	}
	ch.noEventsAfter()
	st = ch.status()
	if st.State != "idle" || st.RunID != nil {
		t.Fatalf("status after the run: %+v", st)
	}
	ch.wantError("turn.cancel", map[string]string{"session_id": s.SessionID, "run_id": runID}, wire.CodeStaleRun)

	// The cancelled turn keeps its partial reply in history.
	if run.finished.Revision != nil {
		entries, _, _ := ch.history(s.SessionID, *run.finished.Revision)
		msgs := messages(entries)
		if len(msgs) < 2 || msgs[1].Kind != "assistant" || msgs[1].Text != partial || !msgs[1].Partial {
			t.Fatalf("history after cancel: %+v", msgs)
		}
	}
}

// gone reports whether pid no longer runs: kill(pid, 0) fails with ESRCH,
// or it is a zombie waiting for a reaper that is not ours.
func gone(pid int) bool {
	err := syscall.Kill(pid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, rerr := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if rerr != nil {
		return errors.Is(rerr, os.ErrNotExist)
	}
	// Field 3, after the parenthesised command name.
	if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] == 'Z' || b[i+2] == 'X'
	}
	return false
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, path, func() bool {
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
	cmd := "echo $$ > " + shellPid + "; sleep 30 & echo $! > " + bgPid + "; sleep 30; echo done"
	ws := newWorkspace(t, "auto", response(shell(cmd)), response(text("after the tool")))
	ch := start(t, ws, client.Options{})
	s := ch.create()
	runID, adm := ch.startTurn(s.SessionID, "run it")
	var evs []client.Event
	ch.until(&evs, wire.EventActivity)
	pids := []int{readPid(t, shellPid), readPid(t, bgPid)}
	if r := ch.cancel(s.SessionID, runID); r.Error != nil {
		t.Fatalf("turn.cancel: %s", r.Error.Code)
	}
	run := ch.finish(s.SessionID, runID, adm, evs)
	if run.finished.Outcome != "cancelled" {
		t.Fatalf("run.finished %s", run.events[len(run.events)-1].Data)
	}
	for _, pid := range pids {
		waitFor(t, "process "+strconv.Itoa(pid)+" to end", func() bool { return gone(pid) })
	}
	for _, ev := range run.events {
		if ev.Name == wire.EventActivity {
			var a activityEvent
			if err := json.Unmarshal(ev.Data, &a); err != nil {
				t.Fatal(err)
			}
			if a.Kind != "tool" || a.Name != "shell" {
				t.Fatalf("activity %s", ev.Data)
			}
		}
	}
	ch.noEventsAfter()
	if run.finished.Revision == nil {
		t.Fatalf("run.finished %s", run.events[len(run.events)-1].Data)
	}
	entries, complete, _ := ch.history(s.SessionID, *run.finished.Revision)
	msgs := messages(entries)
	t.Logf("history after the cancelled shell: complete %v, %+v", complete, msgs)
	if len(msgs) < 2 || msgs[0].Kind != "user" || msgs[1].Kind != "activity" {
		t.Fatalf("history after the cancelled shell: %v", kinds(msgs))
	}
}

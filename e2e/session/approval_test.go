package session

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/stages/wire"
)

type approvalRequested struct {
	ApprovalID  string `json:"approval_id"`
	Summary     string `json:"summary"`
	ExpiresInMs int64  `json:"expires_in_ms"`
}

func (ch *child) answer(sessionID, runID, approvalID string, allow bool) *client.Response {
	ch.t.Helper()
	return ch.call("approval.answer", map[string]any{"session_id": sessionID, "run_id": runID, "approval_id": approvalID, "allow": allow})
}

// TestApprovals runs two turns with tools.approval = "ask": a denied shell
// command never runs; an allowed one runs and reports its activity; every
// other answer is stale_approval.
func TestApprovals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const token = "RAW-TOOL-TOKEN-7f3a"
	denied, allowed := filepath.Join(dir, "denied-marker"), filepath.Join(dir, "allowed-marker")
	ws := newWorkspace(t, "ask",
		response(shell("touch "+denied)), response(text("it was denied")),
		response(shell("touch "+allowed+" && echo "+token)), response(text("it ran")))
	ch := start(t, ws, client.Options{})
	s := ch.create()

	// Turn 1: deny.
	runID, adm := ch.startTurn(s.SessionID, "make the first marker")
	var evs []client.Event
	ev := ch.until(&evs, wire.EventApprovalRequested)
	var req approvalRequested
	if err := ev.Decode(&req); err != nil {
		t.Fatal(err)
	}
	if req.ExpiresInMs != 60_000 || req.ApprovalID == "" {
		t.Fatalf("approval.requested %s", ev.Data)
	}
	wrong := "00000000-0000-4000-8000-000000000000"
	ch.wantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": wrong, "allow": true}, wire.CodeStaleApproval)
	ch.wantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": wrong, "approval_id": req.ApprovalID, "allow": true}, wire.CodeStaleApproval)
	if r := ch.answer(s.SessionID, runID, req.ApprovalID, false); r.Error != nil || string(r.Result) != `{"recorded":true}` {
		t.Fatalf("approval.answer: %s %v", r.Result, r.Error)
	}
	// The second answer, even one that allows, never authorizes.
	ch.wantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": req.ApprovalID, "allow": true}, wire.CodeStaleApproval)
	run := ch.finish(s.SessionID, runID, adm, evs)
	if run.finished.Outcome != "completed" {
		t.Fatalf("run.finished %s", run.events[len(run.events)-1].Data)
	}
	if fileExists(denied) {
		t.Fatal("the denied command ran")
	}
	if got := run.reply(); got != "it was denied" {
		t.Fatalf("reply after denial %q", got)
	}
	ch.noEventsAfter()
	ch.wantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": req.ApprovalID, "allow": true}, wire.CodeStaleApproval)
	if fileExists(denied) {
		t.Fatal("the denied command ran")
	}

	// Turn 2: allow.
	runID, adm = ch.startTurn(s.SessionID, "make the second marker")
	evs = nil
	ev = ch.until(&evs, wire.EventApprovalRequested)
	if err := ev.Decode(&req); err != nil {
		t.Fatal(err)
	}
	if fileExists(allowed) {
		t.Fatal("the command ran before approval")
	}
	if r := ch.answer(s.SessionID, runID, req.ApprovalID, true); r.Error != nil {
		t.Fatalf("approval.answer: %s", r.Error.Code)
	}
	ch.wantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": req.ApprovalID, "allow": false}, wire.CodeStaleApproval)
	run = ch.finish(s.SessionID, runID, adm, evs)
	if run.finished.Outcome != "completed" || run.reply() != "it ran" {
		t.Fatalf("run.finished %s, reply %q", run.events[len(run.events)-1].Data, run.reply())
	}
	if !fileExists(allowed) {
		t.Fatal("the allowed command did not run")
	}
	var states []string
	var activityID string
	for _, ev := range run.events {
		if ev.Name != wire.EventActivity {
			continue
		}
		var a activityEvent
		if err := json.Unmarshal(ev.Data, &a); err != nil {
			t.Fatal(err)
		}
		if a.Kind != "tool" || a.Name != "shell" || len(a.Summary) > wire.SummaryBytes || a.ActivityID == "" || strings.Contains(a.Summary, token) {
			t.Fatalf("activity %s", ev.Data)
		}
		if activityID == "" {
			activityID = a.ActivityID
		} else if a.ActivityID != activityID {
			t.Fatalf("activity IDs %s and %s for one call", activityID, a.ActivityID)
		}
		states = append(states, a.State)
	}
	if len(states) != 2 || states[0] != "started" || states[1] != "completed" {
		t.Fatalf("activity states %v; want [started completed]", states)
	}
	ch.noEventsAfter()

	// History shows the activity, never the tool's raw result or params.
	entries, complete, _ := ch.history(s.SessionID, *run.finished.Revision)
	if !complete {
		t.Fatal("history incomplete after two completed turns")
	}
	var hist []string
	for _, m := range messages(entries) {
		hist = append(hist, m.Kind)
		if m.Kind == "activity" && strings.Contains(m.Text, token) {
			t.Fatalf("activity entry shows raw tool params or result: %q", m.Text)
		}
		t.Logf("%s: %.200q", m.Kind, m.Text)
	}
	if !slices.Contains(hist, "activity") {
		t.Fatalf("history without the tool activity: %v", hist)
	}
}

// TestPendingApprovalEnds ends a run while its approval is pending, by
// turn.cancel or by closing stdin (disconnect): the approval defaults to
// deny and the command never runs.
func TestPendingApprovalEnds(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"cancel", "disconnect"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), "marker")
			ws := newWorkspace(t, "ask", response(shell("touch "+marker)), response(text("after")))
			ch := start(t, ws, client.Options{})
			s := ch.create()
			runID, adm := ch.startTurn(s.SessionID, "ask me")
			var evs []client.Event
			ev := ch.until(&evs, wire.EventApprovalRequested)
			var req approvalRequested
			if err := ev.Decode(&req); err != nil {
				t.Fatal(err)
			}
			switch how {
			case "cancel":
				if r := ch.cancel(s.SessionID, runID); r.Error != nil {
					t.Fatalf("turn.cancel: %s", r.Error.Code)
				}
				run := ch.finish(s.SessionID, runID, adm, evs)
				if run.finished.Outcome != "cancelled" {
					t.Fatalf("run.finished %s", run.events[len(run.events)-1].Data)
				}
				ch.wantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": req.ApprovalID, "allow": true}, wire.CodeStaleApproval)
				ch.shutdown()
			case "disconnect":
				if err := ch.c.CloseStdin(); err != nil {
					t.Fatal(err)
				}
				// EOF does not guarantee the run terminal; drain what comes.
				for range ch.c.Events() {
				}
				code, stderr, err := ch.c.Wait()
				if code != 0 || len(stderr) != 0 || err != nil {
					t.Fatalf("after EOF: exit %d, stderr %q, err %v", code, stderr, err)
				}
			}
			if fileExists(marker) {
				t.Fatal("the command ran without approval")
			}
		})
	}
}

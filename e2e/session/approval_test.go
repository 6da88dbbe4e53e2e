package session

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

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
	s := ch.Create()

	// Turn 1: deny.
	runID, adm := ch.StartTurn(s.SessionID, "make the first marker")
	var evs []client.Event
	ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
	var req clienttest.ApprovalRequested
	if err := ev.Decode(&req); err != nil {
		t.Fatal(err)
	}
	if req.ExpiresInMs != 60_000 || req.ApprovalID == "" {
		t.Fatalf("approval.requested %s", ev.Data)
	}
	wrong := "00000000-0000-4000-8000-000000000000"
	ch.WantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": wrong, "allow": true}, protocol.CodeStaleApproval)
	ch.WantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": wrong, "approval_id": req.ApprovalID, "allow": true}, protocol.CodeStaleApproval)
	if r := ch.AnswerCall(s.SessionID, runID, req.ApprovalID, false); r.Error != nil || string(r.Result) != `{"recorded":true}` {
		t.Fatalf("approval.answer: %s %v", r.Result, r.Error)
	}
	// The second answer, even one that allows, never authorizes.
	ch.WantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": req.ApprovalID, "allow": true}, protocol.CodeStaleApproval)
	run := ch.Finish(s.SessionID, runID, adm, evs)
	if run.Finished.Outcome != "completed" {
		t.Fatalf("run.finished %s", run.Events[len(run.Events)-1].Data)
	}
	if clienttest.FileExists(denied) {
		t.Fatal("the denied command ran")
	}
	if got := run.Reply(); got != "it was denied" {
		t.Fatalf("reply after denial %q", got)
	}
	ch.noEventsAfter()
	ch.WantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": req.ApprovalID, "allow": true}, protocol.CodeStaleApproval)
	if clienttest.FileExists(denied) {
		t.Fatal("the denied command ran")
	}

	// Turn 2: allow.
	runID, adm = ch.StartTurn(s.SessionID, "make the second marker")
	evs = nil
	ev = ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
	if err := ev.Decode(&req); err != nil {
		t.Fatal(err)
	}
	if clienttest.FileExists(allowed) {
		t.Fatal("the command ran before approval")
	}
	if r := ch.AnswerCall(s.SessionID, runID, req.ApprovalID, true); r.Error != nil {
		t.Fatalf("approval.answer: %s", r.Error.Code)
	}
	ch.WantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": req.ApprovalID, "allow": false}, protocol.CodeStaleApproval)
	run = ch.Finish(s.SessionID, runID, adm, evs)
	if run.Finished.Outcome != "completed" || run.Reply() != "it ran" {
		t.Fatalf("run.finished %s, reply %q", run.Events[len(run.Events)-1].Data, run.Reply())
	}
	if !clienttest.FileExists(allowed) {
		t.Fatal("the allowed command did not run")
	}
	var states []string
	var activityID string
	for _, ev := range run.Events {
		if ev.Name != protocol.EventActivity {
			continue
		}
		var a clienttest.Activity
		if err := json.Unmarshal(ev.Data, &a); err != nil {
			t.Fatal(err)
		}
		if a.Kind != "tool" || a.Name != "shell" || len(a.Summary) > protocol.SummaryBytes || a.ActivityID == "" || strings.Contains(a.Summary, token) {
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
	entries, complete, _ := ch.History(s.SessionID, *run.Finished.Revision)
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
			s := ch.Create()
			runID, adm := ch.StartTurn(s.SessionID, "ask me")
			var evs []client.Event
			ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
			var req clienttest.ApprovalRequested
			if err := ev.Decode(&req); err != nil {
				t.Fatal(err)
			}
			switch how {
			case "cancel":
				if r := ch.Cancel(s.SessionID, runID); r.Error != nil {
					t.Fatalf("turn.cancel: %s", r.Error.Code)
				}
				run := ch.Finish(s.SessionID, runID, adm, evs)
				if run.Finished.Outcome != "cancelled" {
					t.Fatalf("run.finished %s", run.Events[len(run.Events)-1].Data)
				}
				ch.WantError("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": req.ApprovalID, "allow": true}, protocol.CodeStaleApproval)
				ch.Shutdown()
			case "disconnect":
				if err := ch.C.CloseStdin(); err != nil {
					t.Fatal(err)
				}
				// EOF does not guarantee the run terminal; drain what comes.
				for range ch.C.Events() {
				}
				code, stderr, err := ch.C.Wait()
				if code != 0 || len(stderr) != 0 || err != nil {
					t.Fatalf("after EOF: exit %d, stderr %q, err %v", code, stderr, err)
				}
			}
			if clienttest.FileExists(marker) {
				t.Fatal("the command ran without approval")
			}
		})
	}
}

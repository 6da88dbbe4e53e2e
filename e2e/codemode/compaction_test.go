package codemode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// bigReply is response k of a compaction script: distinct, about 2 KB.
func bigReply(k int) string { return fmt.Sprintf("R%d ", k) + strings.Repeat("word ", 400) }

// TestCompaction: with context_window = 2000 (compaction
// at 1,600 estimated tokens) and 2 KB replies, some turn after the first
// reports a compaction activity started/completed. That compaction's
// provider call consumed the next fixture response (docs/protocol.md, Choices), so the
// turn's reply is the response after it; the history pages then hold a
// compaction entry with exactly the consumed response as its summary, the
// turns before it, and complete=true; the next turn works.
func TestCompaction(t *testing.T) {
	t.Parallel()
	const maxTurns = 8
	var script [][]step
	for k := range maxTurns + 2 {
		script = append(script, response(text(bigReply(k))))
	}
	ws := newWorkspace(t, "context_window = 2000", "", script...)
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	next := 0 // the next fixture response
	compactedAt := -1
	var r run
	for turn := 0; turn < maxTurns && compactedAt < 0; turn++ {
		r = ch.Turn(s.SessionID, fmt.Sprintf("prompt %d", turn))
		if r.Finished.Outcome != "completed" {
			t.Fatalf("turn %d: run.finished %s", turn, r.Terminal())
		}
		var states []string
		for _, a := range r.Activities {
			if a.Kind != "compaction" || a.Name != "compaction" {
				t.Fatalf("turn %d: activity %+v", turn, a)
			}
			states = append(states, a.State)
		}
		switch strings.Join(states, " ") {
		case "":
		case "started completed":
			compactedAt = turn
			next++ // the summary call
		default:
			t.Fatalf("turn %d: compaction states %v", turn, states)
		}
		if got := r.Reply(); got != bigReply(next) {
			t.Fatalf("turn %d: reply %.12q; want response %d", turn, got, next)
		}
		next++
	}
	if compactedAt < 1 {
		t.Fatalf("compacted at turn %d; want a later turn within %d", compactedAt, maxTurns)
	}
	t.Logf("compaction in turn %d of 2 KB replies", compactedAt)
	summary := bigReply(next - 2)

	entries, complete, _ := ch.History(s.SessionID, *r.Finished.Revision)
	if !complete {
		t.Fatal("history incomplete after completed turns")
	}
	var joined []historyMessage
	for _, e := range entries {
		if e.Part == 0 {
			joined = append(joined, historyMessage{Kind: e.Kind})
		}
		joined[len(joined)-1].Text += e.Text
	}
	var compactions []string
	users := 0
	for _, m := range joined {
		switch m.Kind {
		case "compaction":
			compactions = append(compactions, m.Text)
		case "user":
			users++
		}
		if strings.Contains(m.Text, "Summarise the conversation") {
			t.Fatal("the internal summarisation prompt reached history")
		}
	}
	if len(compactions) != 1 || strings.TrimSpace(compactions[0]) != strings.TrimSpace(summary) { // the summary is stored trimmed
		t.Fatalf("compaction entries %.40q; want one holding response %d", compactions, next-2)
	}
	if users != compactedAt+1 {
		t.Fatalf("%d user entries; want %d", users, compactedAt+1)
	}
	t.Logf("history kinds %v", clienttest.Kinds(entries))

	r = ch.Turn(s.SessionID, "after compaction")
	if r.Finished.Outcome != "completed" || r.Reply() != bigReply(next) {
		t.Fatalf("turn after compaction: run.finished %s, reply %.12q", r.Terminal(), r.Reply())
	}
	ch.Shutdown()
}

type historyMessage struct {
	Kind string
	Text string
}

// TestCancelDuringCompaction: a first reply larger than the whole window
// makes the second turn compact before its first call; the summary call's
// fixture response sleeps. turn.cancel while the compaction activity is
// started ends the run cancelled, the compaction activity failed; the
// child stays healthy and the next turn works.
func TestCancelDuringCompaction(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, "context_window = 2000", "",
		response(text(strings.Repeat("big ", 3000))),
		response(sleepMs(60_000), text("never the summary")),
		response(text("summary after cancel")), response(text("after")))
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	if r := ch.Turn(s.SessionID, "fill the window"); r.Finished.Outcome != "completed" || len(r.Activities) != 0 {
		t.Fatalf("first turn: run.finished %s, activities %+v", r.Terminal(), r.Activities)
	}
	runID, adm := ch.StartTurn(s.SessionID, "this one compacts")
	var evs []client.Event
	ch.Until(&evs, runID, "compaction started", clienttest.ActivityOf("compaction", "compaction", "started"))
	if r := ch.Cancel(s.SessionID, runID); r.Error != nil {
		t.Fatalf("turn.cancel: %s", r.Error.Code)
	}
	r := ch.Finish(s.SessionID, runID, adm, evs)
	if r.Finished.Outcome != "cancelled" {
		t.Fatalf("run.finished %s; want cancelled", r.Terminal())
	}
	acts := r.Activities
	if last := acts[len(acts)-1]; last.Kind != "compaction" || last.State != "failed" {
		t.Fatalf("last activity %+v; want the compaction failed", last)
	}
	if strings.Contains(r.Reply(), "never the summary") {
		t.Fatal("the cancelled summary reached the reply")
	}
	var st struct {
		State string `json:"state"`
	}
	ch.Result("status", nil, &st)
	if st.State != "idle" {
		t.Fatalf("status %q after the cancel", st.State)
	}
	r = ch.Turn(s.SessionID, "again")
	// The conversation still overflows the window: the next turn compacts
	// (consuming "summary after cancel") and then answers.
	var states []string
	for _, a := range r.Activities {
		states = append(states, a.Kind+" "+a.State)
	}
	if r.Finished.Outcome != "completed" || r.Reply() != "after" || strings.Join(states, ",") != "compaction started,compaction completed" {
		t.Fatalf("next turn: run.finished %s, reply %q, activities %v", r.Terminal(), r.Reply(), states)
	}
	ch.Shutdown()
}

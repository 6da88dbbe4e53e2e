package session

import (
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestFloodSlowReader floods 1,000,000 deltas of 100 bytes at a reader that
// starts slow (a small client buffer and a consumer that sleeps per event):
// deltas may drop (how many depends on who is faster, so the test does not
// count on drops), never show text the reconcile does not hold, while the
// authoritative reconcile and run.finished arrive intact and exactly once.
// The child's memory over this flood is a figure of `make bench`
// (flood.1m.peak_rss), not a test.
//
// 100 MB exceeds the protocol's 8 MiB of assistant content per run, so the run
// must fail with content_limit and truthfully reconcile the accepted prefix
// as partial: whole 100-byte units, no silent truncation.
func TestFloodSlowReader(t *testing.T) {
	t.Parallel()
	unit := strings.Repeat("flood-0123456789 ", 6)[:99] + "\n" // 100 bytes
	const n = 1_000_000
	ws := newWorkspace(t, "", response(repeat(unit, n)))
	ch := start(t, ws, client.Options{EventBuffer: 2})
	s := ch.Create()
	runID, adm := ch.StartTurn(s.SessionID, "flood me")

	var evs []client.Event
	ctx := clienttest.Guard(t)
	for {
		ev, err := ch.C.WaitEvent(ctx, func(client.Event) bool { return true })
		if err != nil && ctx.Err() == nil {
			// The stream ended: only the output deadline may end it, and
			// what arrived before must still be text of the reply.
			endedAtOutputDeadline(t, ch, ws)
			checkFloodDeltas(t, unit, evs)
			return
		}
		if err != nil {
			t.Fatalf("after %d events: %v", len(evs), err)
		}
		if len(evs) < 1000 {
			time.Sleep(time.Millisecond) // the slow phase
		}
		evs = append(evs, ev)
		if ev.Name == protocol.EventRunFinished {
			break
		}
	}
	run := clienttest.CheckRun(t, s.SessionID, runID, adm, evs)
	if run.Count(protocol.EventRunFinished) != 1 {
		t.Fatal("run.finished not exactly once")
	}
	if len(run.Messages) != 1 {
		t.Fatalf("%d reconciled messages", len(run.Messages))
	}
	got := run.Reply()
	// Deltas are best effort: a dropped one spends its part number (a gap),
	// and parts dropped after the last delivered one leave none. Until the
	// first gap the deltas are the reply's exact prefix; after it each one is
	// still text of the reply; together they never hold more than it.
	gaps, deltas, lastPart, deltaBytes := 0, 0, -1, 0
	for _, ev := range run.Events {
		if ev.Name != protocol.EventMessageDelta {
			continue
		}
		var te clienttest.TextEvent
		if err := ev.Decode(&te); err != nil {
			t.Fatal(err)
		}
		if te.Part != lastPart+1 {
			gaps++
		}
		if gaps == 0 && !strings.HasPrefix(got[deltaBytes:], te.Text) {
			t.Fatalf("delta part %d %q is not the reply's next text (no part is missing before it)", te.Part, te.Text)
		}
		if gaps > 0 && !strings.Contains(got, te.Text) {
			t.Fatalf("delta part %d %q is not text of the reply", te.Part, te.Text)
		}
		lastPart = te.Part
		deltas++
		deltaBytes += len(te.Text)
	}
	t.Logf("%d events, %d deltas delivered (%d bytes of %d), %d gaps, last delta part %d", len(run.Events), deltas, deltaBytes, len(got), gaps, lastPart)
	if deltaBytes > len(got) {
		t.Fatalf("deltas carried %d bytes; the reply has %d", deltaBytes, len(got))
	}
	switch run.Finished.Outcome {
	case "failed":
		if run.Finished.ErrorCode == nil || *run.Finished.ErrorCode != string(protocol.CodeContentLimit) {
			t.Fatalf("run.finished %s", run.Events[len(run.Events)-1].Data)
		}
		if !run.Messages[0].Partial {
			t.Fatal("reconcile of a run past the content limit is not partial")
		}
		if len(got) > protocol.RunContentBytes || len(got) < protocol.RunContentBytes-len(unit) || len(got)%len(unit) != 0 || got != strings.Repeat(unit, len(got)/len(unit)) {
			t.Fatalf("reconciled %d bytes; want the accepted whole units up to %d", len(got), protocol.RunContentBytes)
		}
	default:
		t.Fatalf("run.finished %s; want failed with content_limit (100 MB > 8 MiB)", run.Events[len(run.Events)-1].Data)
	}
	ch.noEventsAfter()
}

// checkFloodDeltas checks the deltas of a flood the output deadline cut
// short: no reconcile came, but every delta is whole text of the reply
// (the unit repeated), and until the first gap they join into its prefix.
func checkFloodDeltas(t *testing.T, unit string, evs []client.Event) {
	t.Helper()
	var joined strings.Builder
	lastPart, gap := -1, false
	for _, ev := range evs {
		if ev.Name != protocol.EventMessageDelta {
			continue
		}
		var te clienttest.TextEvent
		if err := ev.Decode(&te); err != nil {
			t.Fatal(err)
		}
		if te.Part <= lastPart {
			t.Fatalf("delta part %d after part %d", te.Part, lastPart)
		}
		gap = gap || te.Part != lastPart+1
		lastPart = te.Part
		if !strings.Contains(strings.Repeat(unit, len(te.Text)/len(unit)+2), te.Text) {
			t.Fatalf("delta part %d %q is not text of the reply", te.Part, te.Text)
		}
		if !gap {
			joined.WriteString(te.Text)
		}
	}
	if got := joined.String(); got != strings.Repeat(unit, len(got)/len(unit))+unit[:len(got)%len(unit)] {
		t.Fatalf("the deltas before the first gap (%d bytes) are not the reply's prefix", len(got))
	}
}

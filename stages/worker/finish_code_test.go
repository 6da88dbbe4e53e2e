package worker

import (
	"context"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/wire"
)

// TestRunFinishedErrorCode: a run that fails says why in run.finished's
// error_code; a cancelled run carries none (docs/protocol.md, Run events).
func TestRunFinishedErrorCode(t *testing.T) {
	p, events, sid := startedPool(t, `{"responses":[{"steps":[{"text":"so far"},{"error":"server_error"}]},{"steps":[{"text":"`+strings.Repeat("partial ", 64)+`"},{"sleep_ms":600000}]}]}`, "")
	failed := runTurn(t, p, events, sid, "fail")
	if last := failed[len(failed)-1]; last.Outcome != "failed" || last.ErrorCode == "" {
		t.Fatalf("failed run's run.finished = %+v; want outcome failed with an error code", last)
	}

	done := make(chan struct{})
	p.StartTurn(context.Background(), "run-2", dispatch.TurnParams{SessionID: sid, Prompt: "go"}, func() { close(done) })
	var last wire.Event
	for e := range events {
		if e.Name == protocol.EventMessageDelta {
			p.CancelRun("run-2")
		}
		if e.Name == protocol.EventRunFinished {
			last = e
			break
		}
	}
	<-done
	if last.Outcome != "cancelled" || last.ErrorCode != "" {
		t.Fatalf("cancelled run's run.finished = %+v; want outcome cancelled without an error code", last)
	}
}

// TestPartialReplyBeforeItsFailure: the history of a turn whose provider
// failed after some text shows the partial reply, then the diagnostic, as
// the live run showed them (the segment's completion is written only at
// the run's end, after the diagnostic); and so does the next turn's
// replay, which holds the partial reply once.
func TestPartialReplyBeforeItsFailure(t *testing.T) {
	for _, text := range []string{"so far", strings.Repeat("long partial ", 2000)} { // one record; chunks
		p, events, sid := startedPool(t, `{"responses":[{"steps":[{"text":"`+text+`"},{"error":"server_error"}]},{"steps":[{"text":"ok"}]}]}`, "")
		evs := runTurn(t, p, events, sid, "fail")
		last := evs[len(evs)-1]
		if last.Outcome != "failed" || !last.HasRevision {
			t.Fatalf("run.finished = %+v", last)
		}
		var kinds []string
		for _, e := range entries(t, p, last.Revision) {
			kinds = append(kinds, e.Kind)
		}
		if got := strings.Join(kinds, " "); got != "user assistant diagnostic" && got != "user assistant assistant diagnostic" {
			t.Fatalf("entries %q; want the partial reply before the diagnostic", got)
		}
		records, code := p.attachment().Replay()
		if code != "" {
			t.Fatal(code)
		}
		n := 0
		for _, r := range records {
			if r.Type == history.TypeAssistant {
				n++
				if r.Text != text || !r.Partial {
					t.Fatalf("replayed reply %+v", r)
				}
			}
		}
		if n != 1 {
			t.Fatalf("%d replayed replies; want 1", n)
		}
	}
}

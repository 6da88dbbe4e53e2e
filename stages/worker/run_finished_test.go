package worker

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/wire"
)

// run.finished is authoritative: it is never dropped, even when the event
// edge stays full.

// TestRunFinishedNeverSilentlyDropped: StartTurn calls done() and
// then offers run.finished with `_ = p.offer(fin)`. When the event edge
// stays full for 2000 ms (a slow reader that keeps 16 or more responses
// unread: the writer only takes events below its watermark, and every
// frame still meets its own output deadline), the terminal event is
// dropped and nothing hears of it. The dispatch machine clears its run
// only after both RunWorkerDone and RunDrained (writer OnEvent of
// run.finished), so the child stays "running" and answers busy to every
// later turn.start/session.*/history.page for the rest of its life, and
// the client waits forever for run.finished. docs/protocol.md, Ordering and delivery: "authoritative
// reconciliation/terminal never silently drop".
func TestRunFinishedNeverSilentlyDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, events, failures := newFailingTestPool(t)
		// A slow reader: the edge is full of deltas.
		for i := range events.Cap() {
			if err := events.Offer(context.Background(), wire.Event{Name: protocol.EventMessageDelta, Part: i}); err != nil {
				t.Fatal(err)
			}
		}
		doneCalled := make(chan struct{})
		// No runtime: the turn ends at once with failed/not_started.
		p.StartTurn(context.Background(), "run-1", dispatch.TurnParams{SessionID: "s1", Prompt: "hi"}, func() { close(doneCalled) })
		<-doneCalled
		// The reader catches up just after the critical wait.
		time.Sleep(protocol.CriticalEventWait + time.Millisecond)
		p.Wait()
		finished := false
		for len(events.C()) > 0 {
			if e := <-events.C(); e.Name == protocol.EventRunFinished {
				finished = true
			}
		}
		var failed error
		select {
		case failed = <-failures:
			if errors.Is(failed, ErrWorkerPanic) {
				t.Fatalf("worker panicked: %v", failed)
			}
		default:
		}
		if !finished {
			// Dropped: it must be reported, so that the child exits 1.
			switch {
			case errors.Is(failed, ErrRunFinishedLost):
			default:
				t.Fatalf("run.finished was dropped (edge expired %d offers) and nothing reported it: the machine keeps the run active forever", events.Expired())
			}
		}
	})
}

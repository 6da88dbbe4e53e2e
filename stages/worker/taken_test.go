package worker

import (
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// TestEventTakenCountsTheRunsDeltas: the writer's notice counts a delta of
// the active run toward the reuse of its texts' memory, and nothing else:
// not another event, not another run's delta, nothing once no run is
// active.
func TestEventTakenCountsTheRunsDeltas(t *testing.T) {
	p := NewPool(Options{})
	p.EventTaken(&wire.Event{Name: protocol.EventMessageDelta, RunID: "r1"}) // no active run
	r := &activeRun{id: "r1"}
	p.run.Store(r)
	for _, e := range []wire.Event{
		{Name: protocol.EventMessageDelta, RunID: "r1"},
		{Name: protocol.EventActivity, RunID: "r1"},
		{Name: protocol.EventMessageDelta, RunID: "r0"},
		{Name: protocol.EventMessageDelta, RunID: "r1"},
		{Name: protocol.EventInputPersisted, RunID: "r1"},
		{Name: protocol.EventRunFinished, RunID: "r1"},
	} {
		p.EventTaken(&e)
	}
	if got := r.taken.Load(); got != 2 {
		t.Errorf("taken = %d; want 2 (the active run's two deltas)", got)
	}
}

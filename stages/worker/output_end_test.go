package worker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// stoppedClock never lets a wait expire: only a context can end it.
type stoppedClock struct{ t time.Time }

func (c stoppedClock) Now() time.Time { return c.t }
func (stoppedClock) NewTimer(time.Duration) (<-chan time.Time, func() bool) {
	return nil, func() bool { return true }
}

// TestOutputEndStopsCriticalWait: a critical event waiting for room on a
// full event edge stops waiting when Options.Output ends (the process is
// exiting), and fails with output_unavailable; its 2000 ms never has to pass.
func TestOutputEndStopsCriticalWait(t *testing.T) {
	events := backpressure.NewMixed("run-events", 1, EventPolicy, stoppedClock{time.Unix(1000, 0)})
	output, stop := context.WithCancel(context.Background())
	stop()
	p := NewPool(Options{Events: events, Output: output})
	if err := p.offer(wire.Event{Name: protocol.EventMessageDelta, Text: "fills the edge"}); err != nil {
		t.Fatal(err)
	}
	result := make(chan error, 1)
	go func() {
		result <- p.offer(wire.Event{Name: protocol.EventDiagnostic, Code: string(protocol.CodeExecutionFailed)})
	}()
	select {
	case err := <-result:
		if !errors.Is(err, errOutputUnavailable) {
			t.Fatalf("offer = %v; want output_unavailable", err)
		}
	case <-time.After(10 * time.Second): // hang guard only: the clock never expires the wait
		t.Fatal("a critical event kept waiting after Output ended")
	}
}

//go:build unix

package writer

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// errWaitedPastDeadline ends Run when the writer is still waiting for a
// stalled reader long after its oldest frame's deadline.
var errWaitedPastDeadline = errors.New("test: the writer waited past the output deadline")

// TestStalledReaderWaitEndsAtDeadline bounds the wait for a stalled reader
// from above. The writer's clock is the wall clock shifted forward right
// after the frame's enqueue, so that the frame has 10 ms of its 2000 left:
// Run must return ErrOutputDeadline about 10 ms later. A wait computed from
// anything but the frame's absolute deadline (a second wait, a deadline
// pushed later, one restarted from now) runs into the 1.5 s guard, which is
// 150 times the remaining wait: machine load cannot reach it, a bug does.
func TestStalledReaderWaitEndsAtDeadline(t *testing.T) {
	for _, left := range []time.Duration{10 * time.Millisecond, time.Millisecond, 0} {
		t.Run(left.String(), func(t *testing.T) {
			var shift atomic.Int64
			_, out := newPipe(t)
			w := newWriter(t, out, Options{Now: func() time.Time {
				return time.Now().Add(time.Duration(shift.Load()))
			}})
			fill(t, out)
			w.Respond(status("stuck"))
			shift.Store(int64(protocol.OutputDeadline - left))

			ctx, cancel := context.WithTimeoutCause(context.Background(), 1500*time.Millisecond, errWaitedPastDeadline)
			defer cancel()
			err := w.Run(ctx, make(chan wire.Event), nil)
			if !errors.Is(err, ErrOutputDeadline) {
				t.Fatalf("Run with %v of the deadline left = %v; want ErrOutputDeadline", left, err)
			}
		})
	}
}

// TestStalledReaderWaitLastsUntilDeadline is the other side: with 300 ms
// left, Run is still waiting 100 ms later (a cancellation is what ends it),
// so the wait does not give up early either.
func TestStalledReaderWaitLastsUntilDeadline(t *testing.T) {
	var shift atomic.Int64
	_, out := newPipe(t)
	w := newWriter(t, out, Options{Now: func() time.Time {
		return time.Now().Add(time.Duration(shift.Load()))
	}})
	fill(t, out)
	w.Respond(status("stuck"))
	start := w.now()
	shift.Store(int64(protocol.OutputDeadline - 300*time.Millisecond))

	cause := errors.New("test: cancelled while waiting")
	ctx, cancel := context.WithCancelCause(context.Background())
	timer := time.AfterFunc(100*time.Millisecond, func() { cancel(cause) })
	defer timer.Stop()
	err := w.Run(ctx, make(chan wire.Event), nil)
	if errors.Is(err, ErrOutputDeadline) && w.now().Sub(start) < protocol.OutputDeadline {
		t.Fatalf("Run = ErrOutputDeadline %v after the enqueue; want it at %v, not before", w.now().Sub(start), protocol.OutputDeadline)
	}
	if !errors.Is(err, cause) && !errors.Is(err, ErrOutputDeadline) {
		t.Fatalf("Run = %v; want the cancellation", err)
	}
}

// TestStalledReaderWallClock is TestStalledReaderWaitEndsAtDeadline with
// the production clock (Options.Now nil: the deadline goes to the poller
// unconverted) and a deadline shortened to 10 ms: Run returns
// ErrOutputDeadline, not before the deadline and long before the 1.5 s
// guard (150 times the wait, as above).
func TestStalledReaderWallClock(t *testing.T) {
	_, out := newPipe(t)
	w := newWriter(t, out, Options{})
	w.q.limit = 10 * time.Millisecond
	fill(t, out)
	start := time.Now()
	w.Respond(status("stuck"))
	ctx, cancel := context.WithTimeoutCause(context.Background(), 1500*time.Millisecond, errWaitedPastDeadline)
	defer cancel()
	err := w.Run(ctx, make(chan wire.Event), nil)
	if !errors.Is(err, ErrOutputDeadline) {
		t.Fatalf("Run = %v; want ErrOutputDeadline", err)
	}
	if waited := time.Since(start); waited < w.q.limit {
		t.Fatalf("Run gave up %v after the enqueue; want at least %v", waited, w.q.limit)
	}
}

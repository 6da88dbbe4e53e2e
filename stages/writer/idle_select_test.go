//go:build unix

package writer

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// The writer's idle select never takes an event past the pending bound or
// the event watermark.

// inState reports whether some goroutine whose stack holds frame is in
// scheduler state state ("select", "sync.Mutex.Lock", ...).
func inState(frame, state string) bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		if strings.Contains(g, frame) && (strings.Contains(head, "["+state+",") || strings.Contains(head, "["+state+"]")) {
			return true
		}
	}
	return false
}

// yieldUntil yields the only P (GOMAXPROCS(1)) until cond holds: no
// sleeping, no timing; each Gosched lets every runnable goroutine run.
func yieldUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i > 100000 {
			t.Fatalf("never reached: %s", what)
		}
		runtime.Gosched()
	}
}

// TestIdleSelectTakesEventIntoFullQueue: Run decides that nothing is
// pending (state() == 0), then blocks in its idle select on wake and events.
// When an event wins that select, enqueueCur appends it without looking at
// the pending count again. Responses enqueued between the select's choice
// and enqueueCur (the stdin goroutine runs concurrently) can fill all 32
// slots first: pending.commit then panics ("commit on a full pending
// queue") with w.mu held, and Run's deferred function blocks forever on
// w.mu. From then on every Respond (called by dispatch with Server.mu held)
// blocks forever: stdin stops being read, no deadline is enforced, the
// child never exits.
//
// GOMAXPROCS(1) makes the interleaving deterministic: the event send hands
// the event to the parked Run goroutine and makes it runnable, but this
// goroutine keeps the only P until it yields.
func TestIdleSelectTakesEventIntoFullQueue(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	_, out := newPipe(t)
	w := newWriter(t, out, Options{})
	events := make(chan wire.Event) // unbuffered: the send is a hand-off
	ctx, cancel := context.WithCancelCause(context.Background())
	result := make(chan error, 1)
	go func() { result <- w.Run(ctx, events, nil) }()
	yieldUntil(t, "Run parked in its idle select", func() bool { return inState("writer.(*Writer).Run(", "select") })
	fill(t, out) // the reader stalls from now on
	events <- delta(0, "x")
	// Run has chosen the event; the stdin goroutine answers 32 pipelined
	// requests (allowed: 32 pending frames) before Run runs again.
	for i := range protocol.PendingOutputFrames {
		if err := w.Respond(status(fmt.Sprintf("r%d", i))); err != nil {
			t.Fatalf("Respond #%d = %v; want nil (32 pending frames are allowed)", i+1, err)
		}
	}
	cause := errors.New("test over")
	cancel(cause)
	var err error
	yieldUntil(t, "Run returned or stuck", func() bool {
		select {
		case err = <-result:
			return true
		default:
		}
		return inState("writer.(*Writer).Run.func1(", "sync.Mutex.Lock")
	})
	if inState("writer.(*Writer).Run.func1(", "sync.Mutex.Lock") {
		t.Fatal("Run panicked in pending.commit (event appended to a full queue) and is stuck on w.mu in its deferred function; every later Respond would block forever")
	}
	if got := pendingFrames(w); got > protocol.PendingOutputFrames {
		t.Fatalf("Pending = %d; want at most %d", got, protocol.PendingOutputFrames)
	}
	// Nothing failed before the cancellation: no overflow, no deadline.
	if !errors.Is(err, cause) {
		t.Fatalf("Run = %v; want the cancellation's cause", err)
	}
}

// TestIdleSelectRespectsWatermark is the milder face of the same
// defect: with 20 responses racing in, the event is taken as the 21st
// pending frame, past EventWatermark (16), eating the response headroom
// that the watermark promises (doc.go).
func TestIdleSelectRespectsWatermark(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	_, out := newPipe(t)
	pendingAtTake := -1
	w := newWriter(t, out, Options{})
	queued := func(*wire.Event) { pendingAtTake = pendingFrames(w) }
	events := make(chan wire.Event)
	ctx, cancel := context.WithCancelCause(context.Background())
	result := make(chan error, 1)
	go func() { result <- w.Run(ctx, events, queued) }()
	yieldUntil(t, "Run parked in its idle select", func() bool { return inState("writer.(*Writer).Run(", "select") })
	fill(t, out)
	events <- delta(0, "x")
	for i := range 20 {
		if err := w.Respond(status(fmt.Sprintf("r%d", i))); err != nil {
			t.Fatalf("Respond #%d = %v", i+1, err)
		}
	}
	cause := errors.New("test over")
	cancel(cause)
	if err := recv(t, result, "Run returning"); !errors.Is(err, cause) {
		t.Fatalf("Run = %v; want the cancellation's cause", err)
	}
	if pendingAtTake > EventWatermark {
		t.Fatalf("event taken with %d frames pending; want events only while fewer than %d are pending", pendingAtTake, EventWatermark)
	}
}

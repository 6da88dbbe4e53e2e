package backpressure

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/magi-code/magi-code/internal/benchcpu"
)

// OfferWaiting keeps OfferWith's rule on the system clock: a free slot is
// taken at once, a full queue waits at most the policy's time (counted as
// expired), room that comes within it is taken, and a context's end stops
// the wait with its cause. The one timer serves every wait.
func TestOfferWaitingRule(t *testing.T) {
	q := New[int]("w", 1, Drop(), nil)
	var w Waiter
	if err := q.OfferWaiting(context.Background(), 1, Wait(time.Hour), &w); err != nil {
		t.Fatalf("offer to an empty queue = %v", err)
	}
	if w.t != nil {
		t.Fatalf("an offer that found room made a timer")
	}
	start := time.Now()
	err := q.OfferWaiting(context.Background(), 2, Wait(20*time.Millisecond), &w)
	if !errors.Is(err, ErrDeadline) || q.Expired() != 1 {
		t.Fatalf("offer to a full queue = %v (expired %d); want ErrDeadline, counted", err, q.Expired())
	}
	if waited := time.Since(start); waited < 20*time.Millisecond {
		t.Fatalf("gave up after %v; want at least the policy's 20ms", waited)
	}
	timer := w.t
	// Room within the wait: taken, and the value is the one queued.
	go func() {
		time.Sleep(5 * time.Millisecond)
		<-q.C()
	}()
	if err := q.OfferWaiting(context.Background(), 3, Wait(10*time.Second), &w); err != nil {
		t.Fatalf("offer that got room = %v", err)
	}
	if got := <-q.C(); got != 3 {
		t.Fatalf("queued %d; want 3", got)
	}
	if w.t != timer {
		t.Fatalf("a second wait made a new timer")
	}
	// A stopped timer leaves no tick behind: the next wait waits its time.
	q.OfferWaiting(context.Background(), 4, Wait(time.Hour), &w)
	start = time.Now()
	if err := q.OfferWaiting(context.Background(), 5, Wait(30*time.Millisecond), &w); !errors.Is(err, ErrDeadline) {
		t.Fatalf("offer to a full queue = %v; want ErrDeadline", err)
	}
	if waited := time.Since(start); waited < 30*time.Millisecond {
		t.Fatalf("gave up after %v (a stale tick?); want at least 30ms", waited)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("exiting")
	time.AfterFunc(5*time.Millisecond, func() { cancel(cause) })
	if err := q.OfferWaiting(ctx, 6, Wait(10*time.Second), &w); !errors.Is(err, cause) {
		t.Fatalf("offer while the context ended = %v; want its cause", err)
	}
	// Drop and other clocks keep OfferWith's behaviour.
	if err := q.OfferWaiting(context.Background(), 7, Drop(), &w); !errors.Is(err, ErrDropped) || q.Dropped() != 1 {
		t.Fatalf("Drop offer to a full queue = %v (dropped %d)", err, q.Dropped())
	}
}

func TestOfferWaitingFakeClock(t *testing.T) {
	c := newFakeClock()
	q := New[int]("w", 1, Drop(), c)
	q.Offer(context.Background(), 1)
	var w Waiter
	done := make(chan error, 1)
	go func() { done <- q.OfferWaiting(context.Background(), 2, Wait(time.Second), &w) }()
	for {
		c.mu.Lock()
		n := len(c.timers)
		c.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	c.Advance(time.Second)
	if err := <-done; !errors.Is(err, ErrDeadline) {
		t.Fatalf("offer on the fake clock = %v; want ErrDeadline at its time", err)
	}
	if w.t != nil {
		t.Fatalf("the fake clock's wait used the real timer")
	}
}

// A wait that times out allocates nothing once the waiter has its timer.
func TestOfferWaitingNoAllocs(t *testing.T) {
	q := New[int]("w", 1, Drop(), nil)
	q.Offer(context.Background(), 1)
	var w Waiter
	q.OfferWaiting(context.Background(), 2, Wait(time.Microsecond), &w)
	if n := testing.AllocsPerRun(20, func() {
		q.OfferWaiting(context.Background(), 2, Wait(time.Microsecond), &w)
	}); n != 0 {
		t.Fatalf("a timed-out wait allocates %v times; want 0", n)
	}
}

// BenchmarkOfferWaitFull: offers that wait for room on a full queue, freed
// one value at a time by a consumer slower than the producer (a flood paced
// by its reader); OfferWith makes a timer per wait, OfferWaiting reuses one.
// waits/op is the share of offers that found the queue full.
func BenchmarkOfferWaitFull(b *testing.B) {
	for _, reuse := range []bool{false, true} {
		name := "OfferWith"
		if reuse {
			name = "OfferWaiting"
		}
		b.Run(name, func(b *testing.B) {
			q := New[int]("bench", 1, Drop(), nil)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for range q.C() {
					spin(500)
				}
			}()
			var w Waiter
			p := Wait(time.Second)
			b.ReportAllocs()
			stop := benchcpu.Start(b)
			for b.Loop() {
				if reuse {
					q.OfferWaiting(context.Background(), 1, p, &w)
				} else {
					q.OfferWith(context.Background(), 1, p)
				}
			}
			q.Close()
			<-done
			stop()
		})
	}
}

var spinSink uint64

// spin burns about n steps of CPU.
func spin(n int) {
	x := spinSink
	for i := range n {
		x = x*6364136223846793005 + uint64(i)
	}
	spinSink = x
}

package backpressure

import (
	"context"
	"sync/atomic"
	"time"
)

// Queue is a bounded FIFO between one or more producers and one consumer,
// with an explicit policy for a full queue. It is safe for concurrent use.
type Queue[T any] struct {
	name   string
	items  chan T
	clock  Clock
	choose func(v T) Policy

	dropped atomic.Uint64
	expired atomic.Uint64
}

// New returns a queue of the given capacity whose Offer applies p. Capacity
// must be positive; clock nil means System.
func New[T any](name string, capacity int, p Policy, clock Clock) *Queue[T] {
	p.full() // panics on the zero Policy: a wiring bug
	return NewMixed(name, capacity, func(T) Policy { return p }, clock)
}

// NewMixed returns a queue whose Offer asks choose for each value's policy.
// choose must be fast and pure.
//
//	events := backpressure.NewMixed("run-events", protocol.WorkerEvents, worker.EventPolicy, backpressure.System)
func NewMixed[T any](name string, capacity int, choose func(v T) Policy, clock Clock) *Queue[T] {
	if capacity <= 0 {
		panic("backpressure: capacity must be positive")
	}
	if clock == nil {
		clock = System
	}
	return &Queue[T]{name: name, items: make(chan T, capacity), clock: clock, choose: choose}
}

// Name is the edge's name, for diagnostics.
func (q *Queue[T]) Name() string { return q.name }

// Cap is the queue's capacity.
func (q *Queue[T]) Cap() int { return cap(q.items) }

// Len is the number of queued values (a snapshot).
func (q *Queue[T]) Len() int { return len(q.items) }

// C is the consumer's end. It is closed by Close.
func (q *Queue[T]) C() <-chan T { return q.items }

// Dropped counts values discarded by a Drop policy.
func (q *Queue[T]) Dropped() uint64 { return q.dropped.Load() }

// Expired counts offers that ended with ErrDeadline.
func (q *Queue[T]) Expired() uint64 { return q.expired.Load() }

// Close closes C. The producer calls it exactly once, after its last Offer;
// a second Close panics.
func (q *Queue[T]) Close() { close(q.items) }

// Offer enqueues v under the queue's policy. It returns nil when v was
// queued; ErrDropped (Drop, counted) or ErrDeadline (Wait) when the queue
// stayed full; or context.Cause(ctx) when ctx ends
// while a Wait offer is waiting. Only a Wait policy blocks, and for at most
// its duration on the queue's clock. A value is never queued when Offer
// returns an error.
func (q *Queue[T]) Offer(ctx context.Context, v T) error {
	return q.OfferWith(ctx, v, q.choose(v))
}

// OfferWith is Offer with policy p for this value only.
func (q *Queue[T]) OfferWith(ctx context.Context, v T, p Policy) error {
	select {
	case q.items <- v:
		return nil
	default:
	}
	if p.Kind != KindWait {
		return q.count(p.full())
	}
	offeredAt := q.clock.Now()
	for {
		// The timer is only a wake-up: the decision is Expired(now), so a
		// fake clock that fires early, late or twice cannot bend the rule.
		now := q.clock.Now()
		if p.Expired(offeredAt, now) {
			return q.count(ErrDeadline)
		}
		fired, stop := q.clock.NewTimer(p.Deadline(offeredAt).Sub(now))
		select {
		case q.items <- v:
			stop()
			return nil
		case <-fired:
		case <-ctx.Done():
			stop()
			return context.Cause(ctx)
		}
	}
}

func (q *Queue[T]) count(err error) error {
	switch err {
	case ErrDropped:
		q.dropped.Add(1)
	case ErrDeadline:
		q.expired.Add(1)
	}
	return err
}

// Waiter is one producer's reusable timer for Wait offers (OfferWaiting):
// made on the first wait that needs it and reset for every later one, so
// that a producer which often finds the queue full (a delta flood paced by
// its reader) does not make a timer per wait. The zero value is ready. It
// is not safe for concurrent use: each producer owns its own.
type Waiter struct {
	t *time.Timer
}

// OfferWaiting is OfferWith(ctx, v, p) for a producer that owns w: the same
// rule and results, but on the system clock a wait uses w's timer instead
// of a new one. Other clocks (tests) go through OfferWith.
func (q *Queue[T]) OfferWaiting(ctx context.Context, v T, p Policy, w *Waiter) error {
	if p.Kind != KindWait || q.clock != System {
		return q.OfferWith(ctx, v, p)
	}
	select {
	case q.items <- v:
		return nil
	default:
	}
	// The timer starts now: the wait is at most p.Wait from here (the
	// attempt above took no time worth counting).
	if w.t == nil {
		w.t = time.NewTimer(p.Wait)
	} else {
		w.t.Reset(p.Wait) // stopped or fired: no stale tick remains (Go 1.23 timers)
	}
	select {
	case q.items <- v:
		w.t.Stop()
		return nil
	case <-w.t.C:
		return q.count(ErrDeadline)
	case <-ctx.Done():
		w.t.Stop()
		return context.Cause(ctx)
	}
}

package writer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/magi-code/magi-code/stages/wire"
)

// aLongTimeAgo is a write deadline that has always passed: setting it wakes
// a write parked in the poller.
var aLongTimeAgo = time.Unix(1, 0)

// Run is the writer goroutine. It writes pending frames (everything pending
// in one write(2)), takes run events from events into the pending buffer
// only while fewer than EventWatermark frames are pending, and waits for
// writability in the runtime poller (no busy polling).
//
// It returns nil once events is closed and nothing is pending (the drain is
// complete; later Respond calls get ErrStopped); ErrOutputDeadline when the
// oldest frame not yet fully written reaches 2000 ms after its enqueue;
// ErrOutputBroken on EPIPE or any other write error; ErrOverflow after
// Respond overflowed; context.Cause(ctx) when ctx ends, at once even while
// waiting for a stalled reader. Every error is fatal (exit 1) and sticky:
// Respond returns it from then on. Run does not close out.
//
// queued, if not nil, is called on Run's goroutine, without the writer's
// lock held, right after a run event received from events got its seq and
// entered the pending buffer. e is valid only during the call. It must not
// block; it may call Respond.
func (w *Writer) Run(ctx context.Context, events <-chan wire.Event, queued func(e *wire.Event)) (err error) {
	w.onEvent = queued
	defer func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if err == nil {
			w.stopped = true
		} else if w.err == nil {
			w.err = err
		}
	}()
	// Wake a write parked in the poller when ctx ends.
	stop := context.AfterFunc(ctx, func() { w.out.SetWriteDeadline(aLongTimeAgo) })
	defer stop()

	for {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		events = w.take(events)
		count, err := w.state()
		if err != nil {
			return err
		}
		if count > 0 {
			if err := w.flush(ctx); err != nil {
				return err
			}
			continue
		}
		if events == nil && w.finish() {
			return nil
		}
		// Idle: nothing pending, so there is room for an event.
		select {
		case <-w.wake:
			// Respond left bytes pending, or failed.
		case e, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			// Responses may have filled the queue since state(): hold the
			// event and let take append it once the count allows.
			w.cur, w.held = e, true
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// state reports the pending count and the fatal error, if any.
func (w *Writer) state() (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.q.count, w.err
}

// finish reports whether nothing is pending, marking the writer stopped in
// the same critical section so that no Respond can slip in unwritten.
func (w *Writer) finish() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.q.count > 0 || w.err != nil || w.held {
		return false
	}
	w.stopped = true
	return true
}

// take moves events into the pending buffer without blocking, while fewer
// than EventWatermark frames are pending. It returns nil once events is
// closed. docs/protocol.md, Ordering and delivery: "Turn events use a separate bounded 32-event channel"; what
// stays in that channel is the producers' backpressure, not ours.
func (w *Writer) take(events <-chan wire.Event) <-chan wire.Event {
	// One clock reading for the batch: an enqueue time taken a few
	// microseconds early only brings a frame's deadline forward.
	var now time.Time
	for events != nil || w.held {
		w.mu.Lock()
		if w.q.count >= EventWatermark || w.err != nil {
			w.mu.Unlock()
			return events
		}
		if w.held {
			w.held = false // the event Run's idle select received
		} else {
			var ok bool
			select {
			case w.cur, ok = <-events:
			default:
				w.mu.Unlock()
				return events
			}
			if !ok {
				w.mu.Unlock()
				return nil
			}
		}
		if now.IsZero() {
			now = w.now()
		}
		w.appendEventLocked(&w.cur, now)
		w.mu.Unlock()
		if w.onEvent != nil {
			w.onEvent(&w.cur)
		}
	}
	return nil
}

// flush writes pending bytes, waiting in the poller for writability until
// the oldest pending frame's absolute deadline. It returns after any
// progress, so that Run can take more events and the deadline can be
// recomputed from the frame the write offset now falls in.
func (w *Writer) flush(ctx context.Context) error {
	w.mu.Lock()
	now := w.now()
	deadline, ok := w.q.deadline()
	expired := w.q.expired(now)
	w.mu.Unlock()
	if !ok {
		return nil
	}
	if expired {
		return ErrOutputDeadline
	}
	// docs/protocol.md, Bounds: "Output deadline: 2000 ms from enqueue, not reset by partial
	// progress". The poller runs on the wall clock: convert, unless Now is it.
	wall := deadline
	if !w.wallClock {
		wall = time.Now().Add(deadline.Sub(now))
	}
	if err := w.out.SetWriteDeadline(wall); err != nil {
		return fmt.Errorf("%w: %w", ErrOutputBroken, err)
	}
	// Checked after setting the deadline: if ctx ended before, we see it
	// here; if after, its AfterFunc overrides our deadline.
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	err := w.raw.Write(w.flushWrite)
	w.mu.Lock()
	fatal := w.err
	w.mu.Unlock()
	switch {
	case fatal != nil:
		return fatal
	case err == nil:
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		w.mu.Lock()
		expired = w.q.expired(w.now())
		w.mu.Unlock()
		if expired {
			return ErrOutputDeadline
		}
		return nil // woke early on the wall clock: recompute and wait again
	default:
		return fmt.Errorf("%w: %w", ErrOutputBroken, err)
	}
}

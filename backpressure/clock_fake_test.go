package backpressure

import (
	"sync"
	"time"
)

// fakeClock is a manual clock: time moves only on Advance, which fires the
// timers that are due.
type fakeClock struct {
	mu     sync.Mutex // guards the fields below
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	fired   chan time.Time
	stopped bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), fired: make(chan time.Time, 1)}
	c.timers = append(c.timers, t)
	return t.fired, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// Advance moves the clock by d and fires every timer now due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.stopped:
		case !t.at.After(c.now):
			t.stopped = true
			t.fired <- c.now
		default:
			kept = append(kept, t)
		}
	}
	c.timers = kept
}

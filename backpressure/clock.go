package backpressure

import "time"

// Clock is the time source of a queue. Production uses System; tests use a
// fake clock or run System inside a testing/synctest bubble.
type Clock interface {
	Now() time.Time
	// NewTimer returns a channel that receives once d has elapsed, and a
	// stop function with the semantics of time.Timer.Stop.
	NewTimer(d time.Duration) (<-chan time.Time, func() bool)
}

// System is the real clock.
var System Clock = systemClock{}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

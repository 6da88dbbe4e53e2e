package worker

import "time"

// A pause must not hide text. The redactor holds back the end of the text
// that could still become part of a secret (the last word; an undecided
// candidate such as a key's prefix and its first characters); the next
// delta usually settles it. When the provider goes quiet instead (it is
// thinking, or about to call a tool), the idle timer shows what is held
// back that is not part of an open secret candidate (redact.Stream.IdleTo).
// A candidate stays held until it is decided or the segment ends.
//
// The timer runs only while the stream holds text back. It fires every
// idleCheck; when no delta came since the last check, the provider is
// quiet: held text goes out within 2*idleCheck of the last delta
// (docs/protocol.md, Delta latency). Its callback runs on the timer's own
// goroutine and takes the sink's mu, so the stream, the carry and the
// order of events stay as the turn worker's goroutine would have them.
// Deltas it offers follow the segment's pacing (best effort, may drop).

// idleCheck is the idle timer's period.
const idleCheck = 20 * time.Millisecond

// idleTimer is the idle state of a turn sink, guarded by its mu.
type idleTimer struct {
	timer  *time.Timer
	armed  bool
	gen    uint64 // bumped when the timer stops: a callback of an older arming does nothing
	pushes uint64 // deltas pushed
	seen   uint64 // pushes at the last check
}

// armIdleLocked notes a delta and starts the idle timer when the stream
// holds text back and the timer is not running.
func (s *turnSink) armIdleLocked() {
	t := &s.idle
	t.pushes++
	if t.armed || s.stream.Held() == 0 {
		return
	}
	t.armed, t.seen = true, t.pushes
	gen := t.gen
	t.timer = time.AfterFunc(idleCheck, func() { s.onIdle(gen) })
}

// stopIdle stops the idle timer and closes the segment for it: no delta
// comes from it afterwards.
func (s *turnSink) stopIdle() {
	s.mu.Lock()
	s.stopIdleLocked()
	s.segment = ""
	s.mu.Unlock()
}

// stopIdleLocked stops the idle timer (the segment ends).
func (s *turnSink) stopIdleLocked() {
	t := &s.idle
	if t.armed {
		t.timer.Stop()
	}
	t.armed = false
	t.gen++
}

// onIdle is the idle timer's callback: with no delta since the last check,
// what the stream holds back outside an open candidate goes out; else the
// timer runs on.
func (s *turnSink) onIdle(gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &s.idle
	if gen != t.gen || !t.armed || s.segment == "" {
		return // stopped meanwhile
	}
	if t.pushes != t.seen {
		t.seen = t.pushes
		t.timer.Reset(idleCheck)
		return
	}
	t.armed = false
	s.carry.Append(s.stream.Held(), s.stream.IdleTo)
	s.deltas(s.segment, false)
}

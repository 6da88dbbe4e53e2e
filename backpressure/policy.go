package backpressure

import (
	"errors"
	"fmt"
	"time"
)

// Errors returned by Offer. Test with errors.Is.
var (
	// ErrDropped reports that a Drop policy discarded the value because the
	// queue was full. It is not a failure: the drop was allowed and counted.
	ErrDropped = errors.New("backpressure: queue full, value dropped")
	// ErrDeadline reports that a Wait(d) policy found no room within d.
	ErrDeadline = errors.New("backpressure: no room before the deadline")
)

// Kind names a policy's behaviour when the queue is full.
type Kind uint8

const (
	KindDrop Kind = iota + 1 // discard and count
	KindWait                 // wait at most Policy.Wait, then ErrDeadline
)

func (k Kind) String() string {
	switch k {
	case KindDrop:
		return "drop"
	case KindWait:
		return "wait"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Policy says what an offer to a full queue does. The zero Policy is
// invalid; build one with Drop or Wait.
type Policy struct {
	Kind Kind
	// Wait is the longest a KindWait offer waits for room, counted from
	// the moment Offer is called.
	Wait time.Duration
}

// Drop returns the best-effort policy: a full queue discards the value.
func Drop() Policy { return Policy{Kind: KindDrop} }

// Wait returns the policy that waits at most d for room. d must be positive.
func Wait(d time.Duration) Policy {
	if d <= 0 {
		panic("backpressure: Wait needs a positive duration")
	}
	return Policy{Kind: KindWait, Wait: d}
}

func (p Policy) String() string {
	if p.Kind == KindWait {
		return fmt.Sprintf("wait(%v)", p.Wait)
	}
	return p.Kind.String()
}

// Deadline is the absolute instant at which an offer made at offeredAt
// under p stops waiting. It is meaningful for KindWait only.
func (p Policy) Deadline(offeredAt time.Time) time.Time { return offeredAt.Add(p.Wait) }

// Expired reports whether an offer made at offeredAt, still without room at
// now, has run out of time. Drop expires at once; Wait(d) expires
// when now >= offeredAt+d (so 1999 ms is in time, 2000 ms is not).
func (p Policy) Expired(offeredAt, now time.Time) bool {
	if p.Kind != KindWait {
		return true
	}
	return !now.Before(p.Deadline(offeredAt))
}

// full is the error an offer to a full queue ends with under p.
func (p Policy) full() error {
	switch p.Kind {
	case KindDrop:
		return ErrDropped
	case KindWait:
		return ErrDeadline
	}
	panic("backpressure: invalid zero Policy")
}

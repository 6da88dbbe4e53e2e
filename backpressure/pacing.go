package backpressure

import "time"

// Pacing is the policy of a best-effort stream of text (message.delta) on an
// edge it shares with values that must not drop: grace, then coalesce, then
// drop. docs/protocol.md, Ordering and delivery: "Deltas may coalesce/drop under pressure".
//
//   - While the edge has room, every piece of text is offered as it comes:
//     one delta in, one frame out.
//   - A piece that finds the edge full waits at most Grace for room (SendWaiting).
//     A reader that keeps up frees room well within it, so the producer is
//     paced by the reader and nothing coalesces.
//   - When no room came within Grace (Missed), the reader is behind: text is
//     carried and coalesces into larger pieces (Hold) until the edge has
//     drained to half its capacity, so that the producer resumes once per
//     batch of frames written, not once per slot freed.
//   - Past MaxCarry bytes carried, the older half of the carry is dropped
//     (DropOldest); the caller spends its part number, so the client sees
//     the gap.
//   - A piece offered without waiting (SendNow) drops, counted, if the edge
//     filled meanwhile.
//
// Pacing is a pure state machine: it reads no clock and touches no queue.
// The caller passes the edge's fill level and carry size to Next and reports
// a wait that found no room with Missed. The zero value is not usable; the
// caller sets Grace and MaxCarry. It is not safe for concurrent use: one
// producer owns it.
type Pacing struct {
	// Grace is the longest one piece waits for room before the reader
	// counts as behind.
	Grace time.Duration
	// MaxCarry bounds the bytes coalesced while the reader is behind.
	MaxCarry int

	behind bool // a wait found no room; cleared when the edge drains to half
}

// Step is what Next tells the producer to do with its carry.
type Step uint8

const (
	// SendNow: offer the next piece now under Drop (a full edge drops it).
	SendNow Step = iota + 1
	// SendWaiting: offer the next piece, waiting at most Grace for room
	// (WaitPolicy); report a failed wait with Missed and ask again.
	SendWaiting
	// Hold: offer nothing now; the carry coalesces with the next text.
	Hold
	// DropOldest: the carry reached MaxCarry: drop its older half.
	DropOldest
)

func (s Step) String() string {
	switch s {
	case SendNow:
		return "send-now"
	case SendWaiting:
		return "send-waiting"
	case Hold:
		return "hold"
	case DropOldest:
		return "drop-oldest"
	}
	return "Step(?)"
}

// Next decides what to do with carried bytes of text while the edge holds
// queued of its capacity values. final means the stream ended: nothing more
// will coalesce with the carry, so it is offered rather than held.
func (p *Pacing) Next(queued, capacity, carried int, final bool) Step {
	if p.behind && queued <= capacity/2 {
		p.behind = false // drained to half: one resume per batch
	}
	switch {
	case !p.behind && queued < capacity:
		return SendNow
	case !p.behind:
		return SendWaiting
	case final:
		return SendNow
	case carried >= p.MaxCarry:
		return DropOldest
	default:
		return Hold
	}
}

// Missed records that a SendWaiting found no room within Grace: the reader is
// behind until the edge drains to half.
func (p *Pacing) Missed() { p.behind = true }

// Behind reports whether the reader counts as behind.
func (p *Pacing) Behind() bool { return p.behind }

// WaitPolicy is the queue policy of a SendWaiting step.
func (p *Pacing) WaitPolicy() Policy { return Wait(p.Grace) }

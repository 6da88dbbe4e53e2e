// Package backpressure holds the bounded queues between pipeline stages and
// their overflow policies, with an injected clock so that every deadline rule
// is tested without sleeping.
//
// A Queue[T] is a buffered channel of fixed capacity plus a policy that says
// what Offer does when the channel is full:
//
//   - Drop: never blocks; the value is dropped, counted (Dropped) and Offer
//     returns ErrDropped. docs/protocol.md, Ordering and delivery: "best-effort deltas may drop".
//   - Wait(d): waits at most d, measured on the injected clock from the
//     moment Offer is called, for room; then returns ErrDeadline. docs/protocol.md, Ordering and delivery:
//     "critical events wait at most 2000 ms". A producer that gets
//     ErrDeadline fails its run with output_unavailable.
//
// The one fatal queue, the writer's 32 pending output frames, is not a
// Queue: the writer owns it (overflow there ends the child with exit 1).
//
// NewMixed chooses the policy per value (the run-event edge: deltas Drop,
// every other event Wait(2000 ms)); OfferWith overrides it for one call.
//
// Decisions are pure functions of now (Policy.Expired), so tests check exact
// instants: a Wait(2000ms) offer made at t is still waiting at t+1999ms and
// expired at t+2000ms.
//
// Ownership: the producer side calls Offer and closes the queue exactly once
// with Close; the consumer ranges over C. Offer after Close panics (a broken
// invariant, like a send on a closed channel). The package starts no
// goroutines; Offer with a Wait policy blocks its caller only.
//
// It is a leaf package: generic over T, it imports none of ours.
package backpressure

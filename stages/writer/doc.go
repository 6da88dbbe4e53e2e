// Package writer is the one ordered writer of a child: every protocol byte
// on stdout goes through it. It assigns seq, keeps at most 32 pending frames,
// enforces the 2000 ms output deadline and owns the protocol output file.
//
// # Stdout belongs to the writer, by construction
//
// TakeStdio (Unix) duplicates fd 0 and fd 1 close-on-exec, points fd 0 and
// fd 1 at /dev/null, sets the duplicates O_NONBLOCK and wraps them with
// os.NewFile, so they park in the runtime poller and support deadlines. No
// library print, stray log line or subprocess can then write to the
// protocol stream or read protocol input. On other systems TakeStdio fails
// (docs/protocol.md, Launch: Windows serve fails explicitly).
//
// # Input and output
//
// Responses arrive through Respond (any goroutine, never blocks on output).
// Run events arrive on a channel (in production the C of the run-event
// backpressure.Queue: 32 events, deltas Drop, others Wait(2000 ms)). Run,
// started once by the wiring, is the writer goroutine; it does not close
// anything: the event producer closes events, and the owner of the output
// file closes it after Run has returned.
//
// # How it works (docs/architecture.md and docs/benchmarks.md)
//
//   - One queue, one seq: a frame gets its seq when it enters the pending
//     buffer (Respond for responses, Run for events), from 1, strictly
//     increasing across all frames; bytes leave in that order.
//   - Pending frames live in one reused contiguous buffer plus a ring of 32
//     (end offset, enqueue time) records (pending.go, a pure core). Events
//     are encoded straight into it with wire.AppendEvent: no allocation per
//     frame. Memory is bounded by 32 frames of at most 65,536 bytes.
//   - Run writes everything pending in one write(2): under load it batches
//     by itself, with no flush timer and no latency when idle.
//   - Respond writes inline, with one nonblocking write(2) on the caller's
//     goroutine, when nothing is pending (no goroutine hop on the request
//     path); what does not fit is left to Run, woken by a one-slot channel.
//     Events are never written inline (that would defeat batching).
//   - Every write(2) happens under the writer's mutex and the pending count
//     is decremented in the same critical section. A peer that reads a
//     frame and sends its next request at once cannot make the child count
//     that frame as still pending: a client with exactly 32 requests in
//     flight never overflows (the pipelined benchmark).
//   - Waiting for writability happens outside the mutex, in the poller, via
//     RawConn.Write with SetWriteDeadline set to the enqueue time of the
//     oldest frame not yet fully written plus 2000 ms. After any progress
//     Run recomputes it from the frame the write offset now falls in, so
//     partial writes never postpone it. No busy polling while stalled.
//   - Run takes events only while fewer than EventWatermark (16) frames are
//     pending, so responses always have 16 frames of headroom: a
//     turn.cancel during a flood to a slow reader does not overflow. Events
//     it does not take stay in the producer's bounded queue, where the
//     Drop/Wait policies apply.
//
// # Fatal errors (exit 1, nothing on stderr)
//
// Run returns ErrOverflow (a 33rd pending frame), ErrOutputDeadline (the
// oldest frame not fully written at 2000 ms after enqueue; 1999 ms is in
// time), ErrOutputBroken (EPIPE or any write error; SIGPIPE must be ignored
// first thing in main), or ctx's cause. Errors are sticky: Respond returns
// them too. Run returns nil once events is closed and nothing is pending;
// the closing drain's own 2000 ms bound is the caller's ctx.
//
// # Choices where the brief left details open
//
//   - An encoded frame over 65,536 bytes including LF is a bug upstream
//     (results and text are bounded before they get here). It is never
//     sent: a response becomes the error response content_limit for the
//     same id, an event becomes a diagnostic event with code content_limit
//     for the same session and run; both are counted in Stats.Oversize and
//     reported through Options.Logf. The client is told truthfully, and the
//     transport stays up.
//   - Run's queued callback runs on Run's goroutine without the lock, after
//     the event got its seq and entered the pending buffer (not after it
//     was written).
//   - Respond after Run returned nil gets ErrStopped.
//   - With 16 event frames pending the guaranteed response headroom is 16
//     frames, not 32: a client that keeps more than 16 responses unread
//     while a run floods events to it can still overflow the 32-frame
//     bound. The protocol's 32 (docs/protocol.md, Bounds) is a total; we keep it a total.
package writer

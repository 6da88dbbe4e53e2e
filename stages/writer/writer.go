package writer

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// Fatal transport errors. Each means exit 1 without writing to stderr; only
// cmd/ maps them to an exit code. Test with errors.Is.
var (
	// ErrOverflow: a frame was enqueued while 32 were already pending.
	// docs/protocol.md, Ordering and delivery: "Queue overflow terminates with exit 1".
	ErrOverflow = errors.New("writer: pending output overflow")
	// ErrOutputDeadline: the oldest frame not yet fully written reached
	// 2000 ms after its enqueue. docs/protocol.md, Ordering and delivery: "The oldest output frame exceeding
	// its absolute deadline terminates with exit 1."
	ErrOutputDeadline = errors.New("writer: output deadline exceeded")
	// ErrOutputBroken: write(2) failed with EPIPE or any other error, or the
	// output file is closed. docs/protocol.md, Ordering and delivery: "Broken output terminates with exit 1."
	// The returned error also wraps the underlying errno, for logs only.
	ErrOutputBroken = errors.New("writer: output broken")
	// ErrStopped: Respond after Run returned nil (everything drained).
	ErrStopped = errors.New("writer: stopped")
)

// EventWatermark is how many frames may be pending before Run stops taking
// run events. docs/protocol.md, Bounds: pending output is 32 frames; keeping events to the lower
// half leaves at least 16 frames of headroom for responses (a turn.cancel
// during an event flood to a slow reader must never overflow).
const EventWatermark = protocol.PendingOutputFrames / 2

// Options configure a Writer.
type Options struct {
	// InstanceID is the child's UUID, copied into every frame.
	InstanceID string
	// Now is the clock for enqueue times and deadlines; nil means
	// time.Now. Waiting in the poller uses the wall clock, converted from
	// Now's deadline, so Now should run at wall-clock speed.
	Now func() time.Time
	// Logf receives diagnostics (an oversize frame); nil discards them.
	// It must never write to stdout or stderr.
	Logf func(format string, args ...any)
}

// Stats are cumulative counters, for tests and benchmarks.
type Stats struct {
	Frames   uint64 // frames enqueued (responses and events)
	Writes   uint64 // write(2) calls that wrote at least one byte
	Bytes    uint64 // bytes written
	Inline   uint64 // write(2) calls made by Respond on its caller's goroutine
	Oversize uint64 // frames replaced because they exceeded 65,536 bytes
}

// Writer is the one ordered writer of a child: it owns the protocol output
// file, assigns seq, keeps at most 32 pending frames and enforces the
// 2000 ms output deadline. Respond is safe for concurrent use; Run is called
// once, by the goroutine that owns the output.
type Writer struct {
	out Output
	raw syscall.RawConn
	// write is one nonblocking write of b to the output: write(2) on the
	// descriptor for a file, Pipe.writeNonblock for a Pipe.
	write      func(fd uintptr, b []byte) (int, error)
	instanceID string
	enc        *wire.EventEncoder // instanceID's event frames; mu guards it
	now        func() time.Time
	wallClock  bool                // now is time.Now: its deadlines need no conversion
	onEvent    func(e *wire.Event) // Run's queued argument; Run's goroutine only
	logf       func(format string, args ...any)
	// wake holds one token when Respond left bytes pending or failed.
	wake chan struct{}
	// inlineWrite and flushWrite are the fd callbacks of Respond and Run,
	// built once so that passing them to the RawConn does not allocate.
	inlineWrite func(fd uintptr)
	flushWrite  func(fd uintptr) bool
	// cur is the event being taken; only Run's goroutine touches it. A
	// field rather than a local so that handing &cur to onEvent does not
	// allocate per event.
	cur wire.Event
	// held: Run's idle select received cur, and take has not appended it
	// yet (responses may have filled the queue meanwhile). Run's goroutine
	// only.
	held bool

	// mu guards the fields below. Every write(2) on out happens with mu
	// held, and the pending count is decremented in the same critical
	// section, so no Respond can observe a frame as pending after the
	// syscall that carried it has returned. Waiting for writability
	// happens without mu, in the runtime poller.
	mu      sync.Mutex
	q       pending
	err     error // sticky fatal error, set once
	stopped bool  // Run returned nil
	stats   Stats
}

// Output is what a Writer writes: a nonblocking *os.File registered with
// the runtime poller (TakeStdio's out, or os.Pipe's write end after
// SetNonblock), or a *Pipe for an in-process client.
type Output interface {
	SyscallConn() (syscall.RawConn, error)
	SetWriteDeadline(t time.Time) error
}

// New returns the writer for out, which must be a nonblocking file
// registered with the runtime poller (TakeStdio's out, or os.Pipe's write
// end after SetNonblock) or a *Pipe: writes never block and
// SetWriteDeadline works. The Writer never closes out; its owner does,
// after Run has returned and Respond is no longer called.
func New(out Output, opts Options) (*Writer, error) {
	raw, err := out.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("writer: %w", err)
	}
	// A file the poller does not manage (blocking, or a regular file)
	// cannot have a write deadline: refuse it now rather than at the first
	// stall.
	if err := out.SetWriteDeadline(time.Time{}); err != nil {
		return nil, fmt.Errorf("writer: output is not a nonblocking pollable file: %w", err)
	}
	w := &Writer{
		out:        out,
		raw:        raw,
		instanceID: opts.InstanceID,
		enc:        wire.NewEventEncoder(opts.InstanceID),
		now:        opts.Now,
		logf:       opts.Logf,
		wake:       make(chan struct{}, 1),
		write:      writeFD,
	}
	if p, ok := out.(*Pipe); ok {
		w.write = p.writeNonblock
	}
	if w.now == nil {
		w.now, w.wallClock = time.Now, true
	}
	if w.logf == nil {
		w.logf = func(string, ...any) {}
	}
	w.q.buf = make([]byte, 0, 64<<10)
	w.inlineWrite = func(fd uintptr) {
		w.stats.Inline++
		w.writeLocked(fd)
	}
	w.flushWrite = func(fd uintptr) bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		progressed, wouldBlock := w.writeLocked(fd)
		// false parks Run in the poller until fd is writable or the
		// deadline passes.
		return progressed || !wouldBlock || w.err != nil
	}
	return w, nil
}

// Respond enqueues a response frame: it assigns the next seq and encodes r
// into the pending buffer. It never blocks on output: when nothing was
// pending it writes the frame inline with one nonblocking write(2) from the
// caller's goroutine, and leaves to Run only what did not fit.
//
// It returns ErrOverflow when 32 frames are already pending (the frame is
// not enqueued), the writer's fatal error once there is one (ErrOverflow,
// ErrOutputBroken, ErrOutputDeadline, or ctx's cause from Run), or
// ErrStopped after Run drained and returned nil. Every fatal error is also
// returned by Run, so the caller only needs Respond's error for logging.
//
// A response whose frame would exceed 65,536 bytes including LF is a bug
// upstream; it is replaced by the error response content_limit for the same
// id, and logged.
func (w *Writer) Respond(r *wire.Response) error {
	return w.enqueue(func() { w.appendResponseLocked(r) })
}

// Frame enqueues one complete frame of another protocol on the same
// stdout, with the same discipline as Respond (inline write when nothing is
// pending, the 32-frame bound, the output deadline): the ACP front door's
// responses. b must end with LF; a frame over 65,536 bytes including LF, or
// one without its LF, is a bug upstream and is not sent (counted in
// Stats.Oversize and logged). b is copied; the caller may reuse it.
func (w *Writer) Frame(b []byte) error {
	return w.enqueue(func() { w.appendRawLocked(b, w.now()) })
}

// enqueue is Respond's and Frame's discipline around appendLocked, which
// appends exactly one frame to the pending buffer.
func (w *Writer) enqueue(appendLocked func()) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.stopped {
		return ErrStopped
	}
	if w.q.full() {
		// docs/protocol.md, Ordering and delivery: "Queue overflow terminates with exit 1: no silent
		// authoritative drop."
		w.failLocked(ErrOverflow)
		return ErrOverflow
	}
	wasEmpty := w.q.count == 0
	appendLocked()
	if wasEmpty {
		// No goroutine hop on the request path (docs/architecture.md).
		// Control only pins the fd; it does not wait for Run's poller wait
		// (which only happens while something is pending, so not now).
		// inlineWrite runs with mu held (see New).
		err := w.raw.Control(w.inlineWrite)
		if err != nil {
			w.failLocked(fmt.Errorf("%w: %w", ErrOutputBroken, err))
		}
	}
	if w.q.count > 0 {
		w.signal()
	}
	return w.err
}

// Progress is where output stands, for the diagnostic log.
type Progress struct {
	Pending        int           // frames not yet fully written
	OldestAge      time.Duration // age of the oldest of them (0 when none)
	LastSeqWritten uint64        // seq of the last frame fully written (0 when none)
	Bytes          uint64        // bytes written
}

// Progress returns a snapshot of where output stands.
func (w *Writer) Progress() Progress {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := Progress{Pending: w.q.count, LastSeqWritten: w.q.seq - uint64(w.q.count), Bytes: w.stats.Bytes}
	if w.q.count > 0 {
		p.OldestAge = w.now().Sub(w.q.ring[w.q.head].enq)
	}
	return p
}

// Stats returns a snapshot of the counters.
func (w *Writer) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// signal wakes Run without blocking; one token is enough.
func (w *Writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// failLocked records the first fatal error and wakes Run, whether it waits
// in its select or in the poller for a stalled reader.
func (w *Writer) failLocked(err error) {
	if w.err == nil {
		w.err = err
	}
	w.signal()
	w.out.SetWriteDeadline(aLongTimeAgo)
}

func (w *Writer) appendResponseLocked(r *wire.Response) {
	start := w.q.begin()
	seq := w.q.nextSeq()
	// A result longer than a frame cannot fit: do not grow the buffer for it.
	if len(r.Result) <= protocol.MaxOutputFrameBytes {
		w.q.buf = wire.AppendResponse(w.q.buf, w.instanceID, seq, r)
	}
	if len(r.Result) > protocol.MaxOutputFrameBytes || len(w.q.buf)-start > protocol.MaxOutputFrameBytes {
		w.stats.Oversize++
		w.logf("writer: response frame over %d bytes replaced by %s", protocol.MaxOutputFrameBytes, protocol.CodeContentLimit)
		sub := wire.Response{ID: r.ID, NullID: r.NullID, Error: protocol.CodeContentLimit}
		w.q.buf = wire.AppendResponse(w.q.buf[:start], w.instanceID, seq, &sub)
	}
	w.q.commit(w.now())
	w.stats.Frames++
}

// appendRawLocked enqueues the complete frame b at now (Frame, and events
// that carry Raw). It takes no seq: the frame is another protocol's.
func (w *Writer) appendRawLocked(b []byte, now time.Time) {
	if len(b) == 0 || len(b) > protocol.MaxOutputFrameBytes || b[len(b)-1] != '\n' {
		// Never send a frame the client must refuse, nor one that would
		// run into the next. The raw frame's protocol is not ours to
		// substitute an answer in: it is dropped and logged.
		w.stats.Oversize++
		w.logf("writer: raw frame of %d bytes not sent (over %d bytes, or without its LF)", len(b), protocol.MaxOutputFrameBytes)
		return
	}
	w.q.begin()
	w.q.buf = append(w.q.buf, b...)
	w.q.commit(now)
	w.stats.Frames++
}

// appendEventLocked encodes e as the next frame, enqueued at now.
func (w *Writer) appendEventLocked(e *wire.Event, now time.Time) {
	if e.Raw != nil {
		w.appendRawLocked(e.Raw, now)
		return
	}
	start := w.q.begin()
	seq := w.q.nextSeq()
	w.q.buf = w.enc.Append(w.q.buf, seq, e)
	if len(w.q.buf)-start > protocol.MaxOutputFrameBytes {
		// Text reaches us already chunked (4,000 raw bytes per part), so
		// this is a bug upstream. Never send a frame the client must
		// refuse; tell it truthfully that content was lost.
		w.stats.Oversize++
		w.logf("writer: %s event frame over %d bytes replaced by a %s diagnostic", e.Name, protocol.MaxOutputFrameBytes, protocol.CodeContentLimit)
		sub := wire.Event{Name: protocol.EventDiagnostic, SessionID: e.SessionID, RunID: e.RunID, Code: string(protocol.CodeContentLimit)}
		if len(sub.SessionID)+len(sub.RunID) > protocol.MaxOutputFrameBytes/8 {
			sub.SessionID, sub.RunID = "", ""
		}
		w.q.buf = wire.AppendEvent(w.q.buf[:start], w.instanceID, seq, &sub)
	}
	w.q.commit(now)
	w.stats.Frames++
}

// writeLocked writes pending bytes to fd with nonblocking write(2) calls,
// all pending frames in one call, and accounts what was written in the same
// critical section. It reports whether any byte was written and whether
// the fd would block. A write error other than EAGAIN is fatal.
func (w *Writer) writeLocked(fd uintptr) (progressed, wouldBlock bool) {
	for w.q.count > 0 && w.err == nil {
		b := w.q.unwritten()
		n, err := w.write(fd, b)
		if n > 0 {
			w.q.advance(n)
			w.stats.Writes++
			w.stats.Bytes += uint64(n)
			progressed = true
		}
		switch {
		case err == nil && n < len(b):
			// A short write means the pipe is full: the next call would
			// only say EAGAIN.
			return progressed, true
		case err == nil:
		case isInterrupted(err):
		case isAgain(err):
			return progressed, true
		default:
			w.failLocked(fmt.Errorf("%w: %w", ErrOutputBroken, err))
		}
	}
	return progressed, false
}

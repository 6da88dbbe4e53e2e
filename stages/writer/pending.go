package writer

import (
	"time"

	"github.com/magi-code/magi-code/protocol"
)

// record marks where one pending frame ends in the buffer and when it was
// enqueued.
type record struct {
	end int // offset just past the frame's LF in pending.buf
	enq time.Time
}

// pending is the core of the writer: the frames enqueued but not yet fully
// written, as one contiguous byte buffer plus a ring of records. It does no
// I/O, holds no lock and reads no clock; the Writer guards it with its mutex
// and passes now in.
//
// Invariants: buf[off:] are the unwritten bytes; the ring holds count
// records, oldest first, with strictly increasing ends, the last one equal to
// len(buf); the oldest record is the frame that offset off falls in.
type pending struct {
	buf   []byte
	off   int
	ring  [protocol.PendingOutputFrames]record
	head  int // index of the oldest record
	count int
	seq   uint64 // last assigned seq; frames are numbered from 1
	// limit is the output deadline; zero means protocol.OutputDeadline. Only
	// in-package tests shorten it, to exercise a real stalled pipe quickly.
	limit time.Duration
}

// full reports whether no frame can be added.
func (p *pending) full() bool { return p.count == len(p.ring) }

// unwritten is the bytes to hand to the next write(2): every pending frame.
func (p *pending) unwritten() []byte { return p.buf[p.off:] }

// nextSeq assigns the next sequence number. docs/protocol.md, Events: "Sequence numbers start at
// 1, strictly increase across all output frames".
func (p *pending) nextSeq() uint64 {
	p.seq++
	return p.seq
}

// begin prepares the buffer to receive a frame and returns the offset it
// will start at. It compacts away already written bytes when that is cheap
// relative to what is kept, so the buffer stays bounded by the pending
// frames rather than by history.
func (p *pending) begin() int {
	if p.off > 0 && (p.count == 0 || p.off >= len(p.buf)/2) {
		n := copy(p.buf, p.buf[p.off:])
		for i, k := 0, p.head; i < p.count; i, k = i+1, (k+1)%len(p.ring) {
			p.ring[k].end -= p.off
		}
		p.buf = p.buf[:n]
		p.off = 0
	}
	return len(p.buf)
}

// commit records the frame appended to buf since begin returned start. The
// caller checked full and the frame's size.
func (p *pending) commit(enq time.Time) {
	if p.full() {
		panic("writer: commit on a full pending queue")
	}
	p.ring[(p.head+p.count)%len(p.ring)] = record{end: len(p.buf), enq: enq}
	p.count++
}

// advance accounts n bytes written by write(2) and returns how many frames
// became fully written. docs/protocol.md, Ordering and delivery: a frame leaves the pending count when its last
// byte is in the kernel.
func (p *pending) advance(n int) (done int) {
	if n < 0 || n > len(p.buf)-p.off {
		panic("writer: advance beyond the pending bytes")
	}
	p.off += n
	for p.count > 0 && p.ring[p.head].end <= p.off {
		p.head = (p.head + 1) % len(p.ring)
		p.count--
		done++
	}
	if p.count == 0 {
		p.buf = p.buf[:0]
		p.off = 0
	}
	return done
}

// deadline is the absolute output deadline of the oldest frame not yet fully
// written: its enqueue time plus 2000 ms. docs/protocol.md, Bounds: "Output deadline: 2000 ms
// from enqueue, not reset by partial progress". ok is false when nothing is
// pending.
func (p *pending) deadline() (d time.Time, ok bool) {
	if p.count == 0 {
		return time.Time{}, false
	}
	limit := p.limit
	if limit == 0 {
		limit = protocol.OutputDeadline
	}
	return p.ring[p.head].enq.Add(limit), true
}

// expired reports whether the oldest pending frame is past its deadline at
// now: 1999 ms after enqueue is in time, 2000 ms is not.
func (p *pending) expired(now time.Time) bool {
	d, ok := p.deadline()
	return ok && !now.Before(d)
}

package worker

import (
	"sync/atomic"
	"unsafe"
)

// slabBytes is the size of the blocks that a segment's safe text is
// written into: one allocation per 64 KiB of streamed text instead of one
// per delta.
const slabBytes = 64 << 10

// textCarry is a segment's safe text not yet offered as a delta. The text
// is written once, by the redactor, into an append-only slab, and the texts
// of offered deltas are views of it: no copy between redaction and the
// frame encoder. It is plain data, guarded by the turn sink's mu (the turn
// worker's goroutine and the sink's idle timer use it).
//
// Invariant: slab[off:] is the carried text. Bytes before kept may have been
// handed out (Text, then Consume) and are never written again, so the
// strings Text returned stay valid after the slab is replaced (the garbage
// collector keeps a slab alive while a string points into it). Bytes from
// kept to off were dropped without being handed out: while the reader is
// behind, text is carried and dropped, never handed out, and the carry
// moves back over the dropped bytes instead of filling new slabs.
//
// Slabs are reused once the consumer is done with them: Enqueued counts the
// parts that entered the event edge, a replaced slab is retired with that
// count as its mark, and once taken (the parts of this carry the writer has
// encoded, in the edge's order) reaches the mark, no part of the slab can
// be read again and Append writes a new one into it instead of allocating
// (fresh memory costs a page fault per 4 KiB as well as the allocation).
// With taken nil, or a consumer that never counts, slabs are never reused.
type textCarry struct {
	slab []byte
	off  int
	kept int

	taken   *atomic.Uint64 // parts the consumer is done with; nil: no reuse
	sent    uint64         // parts that entered the edge (Enqueued)
	retired [maxRetired]retiredSlab
}

// retiredSlab is a replaced slab and the count of parts sent when it was
// replaced: every part that was handed out of it and entered the edge is
// among them.
type retiredSlab struct {
	buf  []byte
	mark uint64
}

// maxRetired is how many replaced slabs wait for reuse: at 64 KiB each,
// several times what the 32-event edge can hold of 4,000-byte parts.
const maxRetired = 4

// Enqueued records that the part just handed out (Text, Consume) entered
// the event edge, where the consumer will count it in taken.
func (c *textCarry) Enqueued() { c.sent++ }

// reusable returns a retired slab of at least size bytes that the consumer
// is done with, removed from the retired set, or nil.
func (c *textCarry) reusable(size int) []byte {
	if c.taken == nil {
		return nil
	}
	done := c.taken.Load()
	for i := range c.retired {
		r := &c.retired[i]
		if r.buf != nil && cap(r.buf) >= size && r.mark <= done {
			b := r.buf
			*r = retiredSlab{}
			return b
		}
	}
	return nil
}

// retire keeps a replaced slab for reuse, in place of the one retired
// longest ago when the set is full (that one is left to the collector).
func (c *textCarry) retire(b []byte) {
	if c.taken == nil || cap(b) == 0 {
		return
	}
	oldest := 0
	for i := range c.retired {
		if c.retired[i].buf == nil {
			oldest = i
			break
		}
		if c.retired[i].mark < c.retired[oldest].mark {
			oldest = i
		}
	}
	c.retired[oldest] = retiredSlab{buf: b[:0], mark: c.sent}
}

// Len is the number of carried bytes.
func (c *textCarry) Len() int { return len(c.slab) - c.off }

// Bytes is the carried text, valid until the next Append or Consume.
func (c *textCarry) Bytes() []byte { return c.slab[c.off:] }

// Push appends b to the carry.
func (c *textCarry) Push(b string) {
	c.Append(len(b), func(dst []byte) []byte { return append(dst, b...) })
}

// Append lets add append to the carry (redact.Stream.PushTo); need is
// about how many bytes add appends. When the slab has less room than that,
// the carried text moves to a new slab first; an add that appends more
// than need only costs append's own reallocation, never a handed-out text.
func (c *textCarry) Append(need int, add func(dst []byte) []byte) {
	if cap(c.slab)-len(c.slab) < need {
		n := c.Len()
		if dropped := c.off - c.kept; dropped >= need && dropped >= n/2 {
			// Reclaim what was dropped: only never handed-out bytes are
			// written (copy moves the carry back, to kept).
			c.slab = c.slab[:c.kept+copy(c.slab[c.kept:], c.slab[c.off:])]
			c.off = c.kept
		} else {
			size := max(slabBytes, 2*(n+need))
			slab := c.reusable(size)
			if slab == nil {
				slab = make([]byte, 0, size)
			}
			slab = slab[:n]
			copy(slab, c.slab[c.off:])
			c.retire(c.slab)
			c.slab, c.off, c.kept = slab, 0, 0
		}
	}
	c.slab = add(c.slab)
}

// Text returns the first n carried bytes as an immutable string (a view of
// the slab) without consuming them.
func (c *textCarry) Text(n int) string {
	if n == 0 {
		return ""
	}
	return unsafe.String(&c.slab[c.off], n)
}

// Consume ends the carry of the first n bytes, handed out as Text(n).
func (c *textCarry) Consume(n int) {
	c.off += n
	c.kept = c.off
}

// Drop drops the first n carried bytes, never handed out.
func (c *textCarry) Drop(n int) { c.off += n }

// Reset empties the carry (a new segment): what it held is dropped.
func (c *textCarry) Reset() { c.off = len(c.slab) }

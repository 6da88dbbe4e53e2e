package worker

import "unsafe"

// slabBytes is the size of the blocks that delta texts are cut from: one
// allocation per 64 KiB of streamed text instead of one per delta.
const slabBytes = 64 << 10

// textCarry is a segment's safe text not yet offered as a delta, plus the
// arena that the texts of offered deltas are cut from. It is plain data,
// owned by the turn worker's goroutine.
type textCarry struct {
	buf []byte // the carried text is buf[off:]
	off int
	// slab is append-only: bytes handed out by Text are never written
	// again, so the strings stay valid after the slab is replaced (the
	// garbage collector keeps a slab alive while a string points into it).
	slab []byte
}

// Len is the number of carried bytes.
func (c *textCarry) Len() int { return len(c.buf) - c.off }

// Bytes is the carried text, valid until the next Push, Consume or Reset.
func (c *textCarry) Bytes() []byte { return c.buf[c.off:] }

// Push appends b to the carry.
func (c *textCarry) Push(b string) { c.Append(func(dst []byte) []byte { return append(dst, b...) }) }

// Append lets add append to the carry's buffer (redact.Stream.PushTo). The
// consumed prefix is reclaimed first when that is cheap relative to what is
// kept.
func (c *textCarry) Append(add func(dst []byte) []byte) {
	if c.off > 0 && (c.off == len(c.buf) || c.off >= len(c.buf)/2) {
		c.buf = c.buf[:copy(c.buf, c.buf[c.off:])]
		c.off = 0
	}
	c.buf = add(c.buf)
}

// Consume drops the first n carried bytes.
func (c *textCarry) Consume(n int) {
	c.off += n
	if c.off == len(c.buf) {
		c.buf, c.off = c.buf[:0], 0
	}
}

// Reset empties the carry (a new segment).
func (c *textCarry) Reset() { c.buf, c.off = c.buf[:0], 0 }

// Text returns an immutable copy of the first n carried bytes, cut from the
// slab.
func (c *textCarry) Text(n int) string {
	if n == 0 {
		return ""
	}
	if cap(c.slab)-len(c.slab) < n {
		c.slab = make([]byte, 0, max(slabBytes, n))
	}
	start := len(c.slab)
	c.slab = append(c.slab, c.buf[c.off:c.off+n]...)
	return unsafe.String(&c.slab[start], n)
}

package subproc

// Capped is an io.Writer for a child's output pipe: it keeps the first
// Limit+1 bytes written to it and discards the rest, so the child is never
// blocked and memory never grows past the bound. The extra byte tells a
// caller that output went past Limit. It is not safe for concurrent use;
// give each pipe its own Capped.
type Capped struct {
	Limit   int
	buf     []byte
	written int64 // every byte offered to Write, kept or not
}

// Write keeps what fits and always reports all of p written.
func (c *Capped) Write(p []byte) (int, error) {
	if room := c.Limit + 1 - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	c.written += int64(len(p))
	return len(p), nil
}

// Bytes returns what was kept: at most Limit+1 bytes. The slice aliases the
// buffer; it stays valid until the next Write.
func (c *Capped) Bytes() []byte { return c.buf }

// Truncated reports whether more than Limit bytes were written.
func (c *Capped) Truncated() bool { return c.written > int64(c.Limit) }

// Dropped reports whether bytes were discarded: more than Limit+1 were
// written.
func (c *Capped) Dropped() bool { return c.written > int64(c.Limit)+1 }

package writer

import (
	"strings"
	"testing"
	"time"
)

// TestPendingBufferBoundedByPendingFrames: a reader that always leaves a
// frame or two unwritten never lets the queue drain, yet the buffer stays
// bounded by what is pending, not by what went through (docs/protocol.md,
// Bounds: pending output is 32 frames; memory stays bounded by it).
func TestPendingBufferBoundedByPendingFrames(t *testing.T) {
	var p pending
	body := strings.Repeat("x", 99)
	push(&p, body, t0)
	for i := range 20000 { // 2 MB through the queue
		push(&p, body, t0.Add(time.Duration(i)*time.Millisecond))
		// Write the older frame and half of the newer one.
		if done := p.advance(len(p.unwritten()) - 50); done != 1 {
			t.Fatalf("round %d: %d frames done; want 1", i, done)
		}
		if p.count != 1 {
			t.Fatalf("round %d: %d frames pending; want 1", i, p.count)
		}
	}
	if c := cap(p.buf); c > 4<<10 {
		t.Fatalf("buffer capacity %d bytes for at most two 100-byte frames pending", c)
	}
}

// TestPendingAdvanceBeyondPendingPanics: accounting more bytes written than
// are pending is a broken invariant (a write(2) cannot write what it was not
// given) and panics instead of corrupting the queue, also when part of the
// buffer is already written.
func TestPendingAdvanceBeyondPendingPanics(t *testing.T) {
	for _, c := range []struct {
		name    string
		written int
		n       int
	}{
		{"one byte past everything pending", 0, 14},
		{"one byte past the rest after a partial write", 5, 9},
		{"negative", 0, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var p pending
			push(&p, "first", t0)  // 6 bytes
			push(&p, "second", t0) // 7 bytes
			p.advance(c.written)
			defer func() {
				if recover() == nil {
					t.Fatalf("advance(%d) with %d bytes pending did not panic", c.n, len(p.unwritten()))
				}
			}()
			p.advance(c.n)
		})
	}
}

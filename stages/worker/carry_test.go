package worker

import (
	"strings"
	"testing"
)

// TestCarryTextsStayValid: texts handed out by the carry are views of its
// slab; appends after them, slab replacements, drops and resets never
// change one.
func TestCarryTextsStayValid(t *testing.T) {
	var c textCarry
	type handed struct{ got, want string }
	var out []handed
	next := byte('a')
	for i := 0; i < 5000; i++ {
		piece := strings.Repeat(string(next), 1+i%300)
		next = 'a' + (next-'a'+1)%26
		need := len(piece)
		if i%7 == 0 {
			need = 0 // an underestimate: append reallocates by itself
		}
		c.Append(need, func(dst []byte) []byte { return append(dst, piece...) })
		switch {
		case i%97 == 0:
			c.Reset()
		case i%13 == 0:
			c.Drop(c.Len() / 2)
		default:
			n := min(c.Len(), 4000)
			text := c.Text(n)
			out = append(out, handed{text, strings.Clone(text)})
			c.Consume(n)
		}
	}
	for i, h := range out {
		if h.got != h.want {
			t.Fatalf("text %d changed after it was handed out", i)
		}
	}
}

// TestCarryKeepsOrder: what is carried comes out in order, whatever the
// slab does.
func TestCarryKeepsOrder(t *testing.T) {
	var c textCarry
	var in, got strings.Builder
	for i := 0; i < 3000; i++ {
		piece := strings.Repeat(string(rune('a'+i%26)), 1+i%500)
		in.WriteString(piece)
		c.Push(piece)
		if i%3 == 0 {
			n := min(c.Len(), 4000)
			got.WriteString(c.Text(n))
			c.Consume(n)
		}
	}
	got.Write(c.Bytes())
	if got.String() != in.String() {
		t.Fatal("carried text out of order or altered")
	}
}

// TestCarryBehindReusesItsSlab: while the reader is behind, text is carried
// and dropped, never handed out; the carry then moves back over what was
// dropped instead of filling new slabs (a stalled reader must not turn a
// long reply into garbage).
func TestCarryBehindReusesItsSlab(t *testing.T) {
	var c textCarry
	c.Push(strings.Repeat("a", 2*maxCarry)) // a slab as large as the stall below needs
	handed := c.Text(50)
	c.Consume(50)
	c.Drop(c.Len())
	piece := strings.Repeat("z", 100)
	allocs := testing.AllocsPerRun(1, func() {
		for range 100_000 { // 10 MB through a carry bounded at 256 KiB
			c.Push(piece)
			if c.Len() >= maxCarry {
				c.Drop(c.Len() - maxCarry/2)
			}
		}
	})
	if allocs > 2 || cap(c.slab) > 4*maxCarry {
		t.Fatalf("%v allocations, a %d-byte slab for 10 MB carried and dropped; want at most 2, %d", allocs, cap(c.slab), 4*maxCarry)
	}
	if handed != strings.Repeat("a", 50) {
		t.Fatal("a handed-out text changed")
	}
}

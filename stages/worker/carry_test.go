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
			c.Consume(c.Len() / 2) // dropped
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

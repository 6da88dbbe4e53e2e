package worker

import (
	"strings"
	"testing"
)

// TestCarryMemoryBoundedByCarried: the carry's memory follows what it
// carries, not what went through it: a megabyte streamed through a carry
// that never holds more than a few hundred bytes keeps a slab of the
// default size.
func TestCarryMemoryBoundedByCarried(t *testing.T) {
	var c textCarry
	piece := strings.Repeat("x", 100)
	for range 10000 {
		c.Push(piece)
		_ = c.Text(c.Len() - 50)
		c.Consume(c.Len() - 50)
	}
	if got := cap(c.slab); got > 2*slabBytes {
		t.Fatalf("slab of %d bytes after 1 MB through a carry of at most 150 bytes", got)
	}
}

// TestCarryHoldsLargeBacklog: while the reader is behind the carry grows to
// hundreds of kilobytes (up to maxCarry) and keeps it whole and in order.
func TestCarryHoldsLargeBacklog(t *testing.T) {
	var c textCarry
	var want strings.Builder
	for i := range 300 {
		piece := strings.Repeat(string(rune('a'+i%26)), 1000)
		want.WriteString(piece)
		c.Push(piece)
	}
	if string(c.Bytes()) != want.String() {
		t.Fatalf("carry of %d bytes differs from the %d bytes pushed", c.Len(), want.Len())
	}
}

package history

import (
	"testing"
	"unsafe"
)

// TestStrWithoutEscapesReturnsSubslice: a JSON string without escapes is
// returned as a subslice of the line itself (no copy, the decoding buffer
// untouched); one with escapes is decoded into the buffer.
func TestStrWithoutEscapesReturnsSubslice(t *testing.T) {
	line := []byte(`"plain text","with \"escapes\"",""`)
	p := parser{b: line}
	within := func(s []byte) bool {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(line)))
		at := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
		return at >= start && at+uintptr(len(s)) <= start+uintptr(len(line))
	}
	s, ok := p.str(nil)
	if !ok || string(s) != "plain text" || !within(s) {
		t.Fatalf("plain string: %q, %v, subslice of the line: %v", s, ok, within(s))
	}
	if p.buf != nil {
		t.Fatalf("plain string went through the buffer: %q", p.buf)
	}
	p.eat(',')
	s, ok = p.str(nil)
	if !ok || string(s) != `with "escapes"` || within(s) {
		t.Fatalf("escaped string: %q, %v, subslice of the line: %v", s, ok, within(s))
	}
	p.eat(',')
	if s, ok = p.str(nil); !ok || len(s) != 0 || p.i != len(line) {
		t.Fatalf("empty string: %q, %v at %d", s, ok, p.i)
	}
}

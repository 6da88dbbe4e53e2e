package agent

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/provider"
)

// TestSegmentBufferWithinContentBound: the segment buffer holds the
// accepted text exactly and its capacity never exceeds the run's content
// bound (memory bounded by the protocol's limits), whatever the delta
// sizes, across segments.
func TestSegmentBufferWithinContentBound(t *testing.T) {
	for _, tt := range []struct {
		name  string
		bound int
		delta int
	}{
		{"small deltas, small bound", 10_000, 7},
		{"deltas past bigSegment", 300_000, 1000},
		{"one delta per segment half", 200_000, 99_999},
		{"odd sizes", bigSegment + 5, 4095},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			r := newRun(Config{NewID: func() string { n++; return "s" }}, nopSink{}, &accounting{}, tt.bound)
			text := strings.Repeat("z", tt.delta)
			var want strings.Builder
			for seg := 0; r.stop == nil; seg++ {
				// Two segments: the second reuses the first's buffer.
				for i := 0; i < tt.bound/tt.delta/2+1; i++ {
					if err := r.emit(provider.StreamEvent{Kind: provider.TextDelta, Text: text}); err != nil {
						break
					}
					want.WriteString(text)
					if c := cap(r.buf); c > tt.bound {
						t.Fatalf("segment %d: capacity %d past the bound %d", seg, c, tt.bound)
					}
				}
				got, err := r.endSegment()
				if err != nil || got != want.String() {
					t.Fatalf("segment %d: text of %d bytes, %v; want %d bytes", seg, len(got), err, want.Len())
				}
				want.Reset()
			}
			if r.content > tt.bound || r.content+tt.delta <= tt.bound {
				t.Errorf("accepted %d bytes of a %d-byte bound with %d-byte deltas", r.content, tt.bound, tt.delta)
			}
		})
	}
}

// TestSegmentBufferGrowth: the buffer's documented growth (grow): it
// doubles from 4 KiB up to bigSegment, and past bigSegment takes the rest
// of the run's content bound at once, so a long reply is held in one
// buffer without further copies; in a later segment "the rest" is what the
// run may still accept.
func TestSegmentBufferGrowth(t *testing.T) {
	const bound = 1 << 20
	r := newRun(Config{NewID: func() string { return "s" }}, nopSink{}, &accounting{}, bound)
	delta := strings.Repeat("g", 4096)
	emit := func() {
		t.Helper()
		if err := r.emit(provider.StreamEvent{Kind: provider.TextDelta, Text: delta}); err != nil {
			t.Fatal(err)
		}
	}
	// A first, short segment: 3 deltas, capacity 16 KiB, reused next.
	for range 3 {
		emit()
	}
	if c := cap(r.buf); c != 16<<10 {
		t.Errorf("capacity %d after 12 KiB; want 16 KiB", c)
	}
	if _, err := r.endSegment(); err != nil {
		t.Fatal(err)
	}
	for l := 4096; l <= 2*bigSegment; l += 4096 {
		emit()
		want := 16 << 10
		for want < l {
			want *= 2
		}
		if l > bigSegment {
			want = l + (bound - r.content)
		}
		if c := cap(r.buf); c != want {
			t.Fatalf("capacity %d after %d bytes (content %d of %d); want %d", c, l, r.content, bound, want)
		}
	}
	// A segment of exactly bigSegment bytes hands its buffer over.
	r2 := newRun(Config{NewID: func() string { return "s" }}, nopSink{}, &accounting{}, bound)
	for range bigSegment / 4096 {
		if err := r2.emit(provider.StreamEvent{Kind: provider.TextDelta, Text: delta}); err != nil {
			t.Fatal(err)
		}
	}
	text, err := r2.endSegment()
	if err != nil || len(text) != bigSegment || r2.buf != nil {
		t.Errorf("segment of %d bytes: buffer kept (cap %d), %v; want it handed over with the text", len(text), cap(r2.buf), err)
	}
}

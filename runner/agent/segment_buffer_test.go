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

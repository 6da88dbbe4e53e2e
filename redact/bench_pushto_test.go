package redact

import (
	"strings"
	"testing"
)

// BenchmarkStreamPushToShapes is BenchmarkStreamPush through PushTo, the
// form the delta path uses (no allocation for clean text).
func BenchmarkStreamPushToShapes(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			var s Stream
			var out []byte
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			loop(b, func() { out = s.PushTo(out[:0], in.in) })
		})
	}
	b.Run("x1-in-100-deltas", func(b *testing.B) {
		// The flood's text in one-letter deltas.
		var s Stream
		var out []byte
		x := strings.Repeat("x", 100)
		b.SetBytes(100)
		b.ReportAllocs()
		loop(b, func() {
			for i := range 100 {
				out = s.PushTo(out[:0], x[i:i+1])
			}
		})
	})
}

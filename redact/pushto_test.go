package redact

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/benchcpu"
)

// feedTo is feed through PushTo: one growing buffer.
func feedTo(deltas []string) string {
	var s Stream
	var out []byte
	for _, d := range deltas {
		out = s.PushTo(out, d)
	}
	return string(out) + s.Flush()
}

// cutEvery splits s into deltas of n bytes.
func cutEvery(s string, n int) []string {
	var d []string
	for len(s) > n {
		d = append(d, s[:n])
		s = s[n:]
	}
	return append(d, s)
}

func TestPushToMatchesPush(t *testing.T) {
	for _, tc := range secrets {
		for _, n := range []int{1, 3, 7, 40, 97, 1000} {
			in := strings.Repeat("x", 300) + tc.in + strings.Repeat(" tail", 70)
			d := cutEvery(in, n)
			if got, want := feedTo(d), feed(t, d); got != want {
				t.Fatalf("%s in deltas of %d: PushTo gave %q; Push %q", tc.name, n, got, want)
			}
		}
	}
}

func FuzzPushTo(f *testing.F) {
	for _, tc := range secrets {
		f.Add(tc.in, uint8(5))
	}
	f.Fuzz(func(t *testing.T, in string, n uint8) {
		d := cutEvery(in, 1+int(n))
		if got, want := feedTo(d), feed(t, d); got != want {
			t.Fatalf("PushTo(%q in deltas of %d) = %q; Push %q", in, 1+int(n), got, want)
		}
	})
}

func BenchmarkStreamPushTo(b *testing.B) {
	clean := "The quick brown fox jumps over the lazy dog, then writes a function to parse the input file.\n"
	var s Stream
	var out []byte
	b.SetBytes(int64(len(clean)))
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		out = s.PushTo(out[:0], clean)
	}
}

package redact

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// The redaction figures (docs/redaction.md). The benchmarks use
// only String and Stream.Push, so that the same file runs against an
// older version of the package for a side-by-side pass.

const cleanLine = "The quick brown fox jumps over the lazy dog, then writes a function to parse the input file.\n"

// benchInputs are the shapes measured: clean ones must come back unchanged.
func benchInputs(tb testing.TB) []struct {
	name  string
	in    string
	clean bool
} {
	return []struct {
		name  string
		in    string
		clean bool
	}{
		{"clean-100B", cleanLine, true},
		// What the flood benchmark streams: one letter, a hundred times.
		{"x100", strings.Repeat("x", 100), true},
		{"prose-triggers-100B", "Set the token limit and the password reset secret; the bearer sends a basic request.\n", true},
		{"clean-4000B-prose", cleanProse(4000), true},
		{"clean-4000B-code", cleanCode(tb, 4000), true},
		{"go-4000B", testdata(tb, "gocode.txt", 4000), true},
		{"secrets", "export OPENAI_API_KEY=sk-proj-" + rep(an, 40) + " and Authorization: Bearer abc123DEF456ghi789JKL", false},
	}
}

// TestBenchInputs checks that the clean inputs hold no secret and the
// others do, so that the figures measure what their names say.
func TestBenchInputs(t *testing.T) {
	for _, in := range benchInputs(t) {
		if got := String(in.in); in.clean != (got == in.in) {
			t.Errorf("String(%s) = %q: clean is %v", in.name, got, !in.clean)
		}
	}
}

func BenchmarkString(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			loop(b, func() { String(in.in) })
		})
	}
}

func BenchmarkStreamPush(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			var s Stream
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			loop(b, func() { s.Push(in.in) })
		})
	}
	b.Run("code-4000B-in-4B-deltas", func(b *testing.B) {
		// Model-sized deltas: a window with a trigger is matched again at
		// every Push.
		var s Stream
		d := cleanCode(b, 4000)
		b.SetBytes(int64(len(d)))
		b.ReportAllocs()
		loop(b, func() {
			for i := 0; i < len(d); i += 4 {
				s.Push(d[i:min(i+4, len(d))])
			}
			s.Flush()
		})
	})
	b.Run("secret-every-10-deltas", func(b *testing.B) {
		var s Stream
		key := "token ghp_" + rep(an, 36) + " "
		b.ReportAllocs()
		i := 0
		loop(b, func() {
			if i++; i%10 == 0 {
				s.Push(key)
			} else {
				s.Push(cleanLine)
			}
		})
	})
}

// cleanProse returns n bytes of English prose without a secret.
func cleanProse(n int) string {
	return strings.Repeat(cleanLine, n/len(cleanLine)+1)[:n]
}

// cleanCode returns n bytes of the look-alike corpus (code, logs, diffs
// full of trigger words, no secret).
func cleanCode(tb testing.TB, n int) string {
	return testdata(tb, "lookalikes.txt", n)
}

// testdata returns n bytes of testdata/name, repeated as needed and cut
// back to whole UTF-8 sequences.
func testdata(tb testing.TB, name string, n int) string {
	tb.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	s := strings.Repeat(string(data), n/len(data)+1)[:n]
	for !utf8.ValidString(s) {
		n--
		s = s[:n]
	}
	return s
}

package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// feed pushes the deltas through a fresh Stream, checking the holdback
// bound after each Push, and returns everything emitted.
func feed(t testing.TB, deltas []string) string {
	t.Helper()
	var s Stream
	var b strings.Builder
	for _, d := range deltas {
		b.WriteString(s.Push(d))
		if held := len(s.buf) - s.ctx; held > 3*Holdback {
			t.Fatalf("holding %d bytes after Push", held)
		}
	}
	b.WriteString(s.Flush())
	return b.String()
}

// splitAt cuts s at the given sorted offsets.
func splitAt(s string, offs ...int) []string {
	var out []string
	prev := 0
	for _, o := range offs {
		out = append(out, s[prev:o])
		prev = o
	}
	return append(out, s[prev:])
}

// maxMatch is the longest whole match of any rule in s, valid or not: the
// quantity the Stream equality guarantee is stated in. The prechecks are
// off: they turn away matches the checks after the regexp would reject
// (a value that holds a '['), which a Stream may still see as a long
// candidate before the text that rejects it arrives.
func maxMatch(s string) int {
	skipPrechecks = true
	defer func() { skipPrechecks = false }()
	n := 0
	for _, h := range scan(s, 0, nil) {
		if whole, _, ok, _ := match(s, h.pos, rules[h.rule]); ok {
			n = max(n, whole.end-whole.start)
		}
	}
	return n
}

// maxAtDeltas is maxMatch of the text up to the end of each delta: a
// candidate that has grown past swallowAt at the end of a Stream's window
// is taken for a secret, whatever follows (a value a later '+' turns
// away).
func maxAtDeltas(deltas []string) int {
	n, in := 0, ""
	for _, d := range deltas {
		in += d
		n = max(n, maxMatch(in))
	}
	return n
}

func TestStreamSecretSplitAnywhere(t *testing.T) {
	pad := strings.Repeat("lorem ipsum dolor ", 20) // longer than Holdback
	for _, tc := range secrets {
		t.Run(tc.name, func(t *testing.T) {
			suffix := " " + pad
			if strings.Contains(tc.name, "unterminated") {
				suffix = "" // the block runs to the end of the text
			}
			in := pad + tc.in + suffix
			want := String(in)
			if want != pad+tc.want+suffix {
				t.Fatalf("String with padding = %q", want)
			}
			lo, hi := len(pad)-8, min(len(in), len(pad)+len(tc.in)+8)
			for i := lo; i <= hi; i += splitStride {
				if got := feed(t, splitAt(in, i)); got != want {
					t.Fatalf("split at %d: got %q\nwant %q", i, got, want)
				}
				if j := i + (hi-i)/2; i%3 == 0 {
					if got := feed(t, splitAt(in, i, j)); got != want {
						t.Fatalf("split at %d,%d: got %q\nwant %q", i, j, got, want)
					}
				}
			}
			var bytes []string
			for i := range len(in) {
				bytes = append(bytes, in[i:i+1])
			}
			if got := feed(t, bytes); got != want {
				t.Fatalf("one byte per delta: got %q\nwant %q", got, want)
			}
		})
	}
}

func TestStreamLookalikesPassThrough(t *testing.T) {
	in := strings.Join(lookalikes, "\n")
	for _, size := range []int{1, 2, 7, 100, 4000} {
		var deltas []string
		for i := 0; i < len(in); i += size {
			deltas = append(deltas, in[i:min(i+size, len(in))])
		}
		if got := feed(t, deltas); got != in {
			t.Fatalf("deltas of %d: got %q\nwant %q", size, got, in)
		}
	}
}

// A secret much longer than Holdback is still caught: it becomes one marker
// and the rest of its run is dropped as it arrives.
func TestStreamLongSecrets(t *testing.T) {
	jwt := "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ." + rep(an, 3000) + "." + rep(an, 342)
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat(rep(an, 64)+"\n", 40) + "-----END RSA PRIVATE KEY-----"
	tests := []struct{ name, in, want string }{
		{"jwt", "t " + jwt + " after", "t [REDACTED] after"},
		{"pem", "k\n" + pem + "\nafter", "k\n[REDACTED]\nafter"},
		{"pem unterminated", "k\n" + pem[:1500], "k\n[REDACTED]"},
		{"long sk", "sk-" + rep(an, 2000) + "\nx", "[REDACTED]\nx"},
		{"long password", "password=" + rep(an, 1000) + " x", "password=[REDACTED] x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.in); got != tc.want {
				t.Fatalf("String = %q; want %q", got, tc.want)
			}
			for _, size := range []int{1, 3, 100, 255, 256, 257, 1000} {
				var deltas []string
				for i := 0; i < len(tc.in); i += size {
					deltas = append(deltas, tc.in[i:min(i+size, len(tc.in))])
				}
				if got := feed(t, deltas); got != tc.want {
					t.Fatalf("deltas of %d: got %q; want %q", size, got, tc.want)
				}
			}
		})
	}
}

// Push never cuts inside a UTF-8 sequence, and holds back at most Holdback
// bytes of clean text.
func TestStreamRuneBoundaries(t *testing.T) {
	in := strings.Repeat("日本語テキスト😀é ", 80)
	for _, size := range []int{1, 2, 3, 5, 100} {
		var s Stream
		var b strings.Builder
		for i := 0; i < len(in); i += size {
			out := s.Push(in[i:min(i+size, len(in))])
			if !utf8.ValidString(out) {
				t.Fatalf("deltas of %d: Push emitted invalid UTF-8 %q", size, out)
			}
			if held := len(s.buf) - s.ctx; held > Holdback {
				t.Fatalf("deltas of %d: holding %d > %d bytes of clean text", size, held, Holdback)
			}
			b.WriteString(out)
		}
		b.WriteString(s.Flush())
		if b.String() != in {
			t.Fatalf("deltas of %d: text changed", size)
		}
	}
}

func TestStreamReuseAfterFlush(t *testing.T) {
	var s Stream
	key := "ghp_" + rep(an, 36)
	for range 3 {
		got := s.Push("a "+key[:10]) + s.Push(key[10:]+strings.Repeat(" b", 200)) + s.Flush()
		if want := "a [REDACTED]" + strings.Repeat(" b", 200); got != want {
			t.Fatalf("got %q; want %q", got, want)
		}
	}
	// A flush in the middle of a dropped secret ends it: the next segment
	// starts clean.
	s.Push("sk-" + rep(an, 400))
	s.Flush()
	if got := s.Push("plain") + s.Flush(); got != "plain" {
		t.Fatalf("after flush while dropping: got %q", got)
	}
}

// A random mix of secrets and prose cut into random deltas matches String.
func TestStreamRandomMix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var parts []string
	for _, tc := range secrets {
		parts = append(parts, tc.in)
	}
	parts = append(parts, lookalikes...)
	for iter := range 300 {
		var b strings.Builder
		for range 1 + rng.IntN(20) {
			b.WriteString(parts[rng.IntN(len(parts))])
			b.WriteString([]string{" ", "\n", ", ", "", "\t"}[rng.IntN(5)])
		}
		in := b.String()
		var deltas []string
		for i := 0; i < len(in); {
			n := 1 + rng.IntN(150)
			deltas = append(deltas, in[i:min(i+n, len(in))])
			i += n
		}
		got, want := feed(t, deltas), String(in)
		if maxMatch(in) < swallowAt && got != want {
			t.Fatalf("iteration %d: got %q\nwant %q", iter, got, want)
		}
		for _, tc := range secrets {
			if core := tc.in[len(tc.in)/3 : 2*len(tc.in)/3]; len(core) > 12 && !strings.Contains(tc.want, core) && strings.Contains(got, core) && !strings.Contains(want, core) {
				t.Fatalf("iteration %d: %s leaked: %q", iter, tc.name, got)
			}
		}
	}
}

// FuzzStream checks the Stream invariant: the concatenation of every Push
// and the Flush equals String of the whole text whenever no match, in the
// text, a round of settle, or the text up to the end of a delta, exceeds
// swallowAt bytes (maxSettled, maxAtDeltas), for any split of the text.
func FuzzStream(f *testing.F) {
	for _, tc := range secrets {
		f.Add(tc.in, []byte{3, 17, 40})
	}
	f.Add(strings.Repeat("x", 300)+"sk-"+rep(an, 30), []byte{200, 100, 3})
	f.Add("password = 'abc'"+strings.Repeat("é", 200), []byte{1, 1, 255})
	f.Add("DefaultEndpointsProtocol=https;AccountName=a;AccountKey="+rep(an, 86)+"==;x", []byte{60, 2, 9})
	f.Add("machine h login u password "+rep(an, 20)+"\n"+strings.Repeat("x", 300), []byte{30, 1})
	f.Add("api_key = \""+rep(an, 30)+"\" adafruit_key = "+rep(hex, 32)+" ", []byte{10, 20, 30})
	// Bytes between an operator and its value that the value cannot start
	// with go out before the value is decided.
	f.Add("the token store:\n\n```"+rep(an, 24)+"\n", []byte{17, 1, 1, 1})
	f.Add("secret: = \"'"+rep(an, 20)+"' Authorization: \t Bearer  "+rep(an, 20), []byte{8, 1, 1, 1, 1, 30, 2, 2})
	// Secrets next to keys, values and markers (settle.go).
	f.Add("api_key=aB3cD4eF5gH6iJ7k"+Marker+" x", []byte{5, 9, 1, 1})
	f.Add("KEY="+rep(an, 10)+"+KEY=01289AB+C7XY\nok", []byte{4, 4, 4, 4, 4, 4})
	f.Add(Marker+"sk-"+rep(an, 24)+" SECRET0,012789ABKEY=01289AB+C7XY", []byte{11, 2, 30, 3})
	f.Fuzz(func(t *testing.T, in string, cuts []byte) {
		var deltas []string
		i := 0
		for _, c := range cuts {
			n := min(int(c), len(in)-i)
			deltas = append(deltas, in[i:i+n])
			i += n
		}
		for i < len(in) { // the rest in deltas of 97 bytes
			n := min(97, len(in)-i)
			deltas = append(deltas, in[i:i+n])
			i += n
		}
		got := feed(t, deltas)
		if maxSettled(in) < swallowAt && maxAtDeltas(deltas) < swallowAt {
			if want := String(in); got != want {
				t.Fatalf("Stream(%q split %v) = %q; String = %q", in, cuts, got, want)
			}
		}
		if utf8.ValidString(in) && !utf8.ValidString(got) {
			t.Fatalf("Stream(%q) = %q: invalid UTF-8", in, got)
		}
	})
}

// TestContextBytes: the context a Stream keeps reaches the byte before the
// earliest start of a match of a trigger that begins before the cut (a
// .pgpass line's host, 64 bytes before its port): otherwise the start of
// the window reads as the start of the text.
func TestContextBytes(t *testing.T) {
	back := 0
	for _, r := range rules {
		back = max(back, r.back)
	}
	if need := back + maxTrigger; contextBytes < need {
		t.Fatalf("contextBytes = %d; a match may start %d bytes before the cut", contextBytes, need)
	}
}

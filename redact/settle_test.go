package redact

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// glue are the pieces TestFixedPoint joins: keys whose value may run on
// into what follows, values, separators, secrets that end or start a
// token, and the marker itself.
var glue = []string{
	"SECRET0,012789AB", "KEY=", "api_key=", "token: ", "password=\"", "Bearer ", "x",
	"01289AB+C7XY", "aB3cD4eF5gH6", "=", ",", "+", "-", "_", "'", "\"", " ", "\n",
	"ghp_" + rep(an, 36), "sk-" + rep(an, 24), "AKIAZ7Q3XW5RT2M4KP6N", "glpat-" + rep(an, 20),
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", Marker,
}

// checkFixedPoint fails when in redacts to something that redacts again,
// or when a Stream that takes in in deltas of n bytes gives other text.
func checkFixedPoint(t *testing.T, in string) {
	t.Helper()
	out := String(in)
	if again := String(out); again != out {
		t.Fatalf("String(%q) = %q; String of that = %q", in, out, again)
	}
	if Contains(out) {
		t.Fatalf("Contains(String(%q)) = true", in)
	}
	if maxSettled(in) >= swallowAt {
		return
	}
	for _, n := range []int{1, 7} {
		if got := feed(t, cutEvery(in, n)); got != out {
			t.Fatalf("Stream(%q in deltas of %d) = %q; String = %q", in, n, got, out)
		}
	}
	// A line after it settles it before Flush.
	in += "\nlorem ipsum dolor sit amet "
	if got, want := feed(t, cutEvery(in, 5)), String(in); got != want {
		t.Fatalf("Stream(%q in deltas of 5) = %q; String = %q", in, got, want)
	}
}

// TestFixedPoint: the output of String is its own result, whatever
// secrets, keys and values meet in the input (a secret's Marker ends the
// value before it, starts a word after it, or is in the input already),
// and Stream gives the same text for any deltas.
func TestFixedPoint(t *testing.T) {
	checkFixedPoint(t, "SECRET0,012789ABKEY=01289AB+C7XY")
	i := 0
	for _, a := range glue {
		for _, b := range glue {
			for _, c := range glue[:8] { // a key or value in front
				// Every second; under the race detector every tenth.
				if i++; i%(2*splitStride) == 0 {
					checkFixedPoint(t, c+a+b)
				}
			}
		}
	}
}

// TestSettleChain: each value ends only once the next one is redacted
// (its '+' ends no value; the Marker's '[' does), so every round redacts
// one more link; a chain that needs more than maxRounds rounds is redacted
// whole.
func TestSettleChain(t *testing.T) {
	link := "KEY=" + rep(an, 10) + "+"
	for _, n := range []int{1, 2, 5, maxRounds - 1} {
		in := strings.Repeat(link, n) + "KEY=01289AB+C7XY"
		if got, want := String(in), "KEY="+Marker; got != want {
			t.Errorf("%d links: String = %q; want %q", n, got, want)
		}
		checkFixedPoint(t, in)
	}
	in := strings.Repeat(link, maxRounds) + "KEY=01289AB+C7XY"
	if got := String(in); got != Marker {
		t.Errorf("%d links: String = %q; want the whole text redacted", maxRounds, got)
	}
	checkFixedPoint(t, in)
}

// TestStreamHoldsWhatAMarkerMayEnd: a trigger whose value runs on into an
// open candidate is held with it, since the candidate's Marker may end
// its value; it goes out once that is decided.
func TestStreamHoldsWhatAMarkerMayEnd(t *testing.T) {
	var s Stream
	if got := s.Push("SECRET0,012789ABKEY=01289AB+C7"); got != "SECRET0," {
		t.Fatalf("Push = %q; want the value after SECRET0, held", got)
	}
	if got := s.Push("XY") + s.Flush(); got != Marker {
		t.Fatalf("rest = %q; want one marker", got)
	}
	// A value that a Marker would not end goes out as before.
	s = Stream{}
	if got := s.Push("SECRET0, abc KEY=01289AB+C7"); got != "SECRET0, abc KEY=" {
		t.Fatalf("Push = %q", got)
	}
	s.Flush()
}

// TestViewMaps: positions map between a text and its rendered view; a
// bound inside a marker takes in the whole secret.
func TestViewMaps(t *testing.T) {
	s := "ab" + "SECRET" + "cd" + "XY" + "e"
	spans := []span{{start: 2, end: 8}, {start: 10, end: 12}}
	v := newView(s, spans, len(s))
	if want := "ab" + Marker + "cd" + Marker + "e"; v.y != want {
		t.Fatalf("y = %q; want %q", v.y, want)
	}
	for p, want := range map[int]int{0: 0, 1: 1, 8: 12, 9: 13, 12: 24} {
		if got := v.toY(p); got != want {
			t.Errorf("toY(%d) = %d; want %d", p, got, want)
		}
	}
	for _, c := range []struct {
		p        int
		end      bool
		want     int
		whatThis string
	}{
		{0, false, 0, "before any marker"},
		{2, false, 2, "a marker's first byte"},
		{2, true, 2, "an end at a marker's start"},
		{5, false, 2, "inside a marker"},
		{5, true, 8, "an end inside a marker"},
		{12, false, 8, "just past a marker"},
		{13, false, 9, "past a marker"},
		{25, true, 13, "the end"},
	} {
		if got := v.toS(c.p, c.end); got != c.want {
			t.Errorf("toS(%d, %v) (%s) = %d; want %d", c.p, c.end, c.whatThis, got, c.want)
		}
	}
	if !v.covers(7, 9) || v.covers(8, 10) || !v.covers(0, 3) || v.covers(12, 13) {
		t.Error("covers")
	}
	if v := newView(s, spans, 2); v.y != "ab" || len(v.marks) != 0 {
		t.Errorf("view up to a span = %q", v.y)
	}
	if v := newView(s, spans, 5); v.y != "ab"+Marker {
		t.Errorf("view into a span = %q", v.y)
	}
}

// TestInMarker: a secret inside a Marker of the text is not one.
func TestInMarker(t *testing.T) {
	s := "x" + Marker + "y"
	for _, c := range []struct {
		start, end int
		want       bool
	}{
		{1, 11, true}, {2, 10, true}, {1, 2, true}, {10, 11, true},
		{0, 2, false}, {10, 12, false}, {0, 12, false}, {11, 12, false},
	} {
		if got := inMarker(s, span{start: c.start, end: c.end}); got != c.want {
			t.Errorf("inMarker(%q[%d:%d]) = %v; want %v", s, c.start, c.end, got, c.want)
		}
	}
}

// maxSettled is maxMatch over the text and each view settle renders of it,
// and the longest run of secrets that settle's rounds join: the Stream
// invariant holds while none is longer than swallowAt; a text that does not
// settle is one long secret.
func maxSettled(s string) int {
	n := maxMatch(s)
	var buf [8]span
	spans := find(s, scan(s, 0, nil), buf[:0], nil)
	for range maxRounds {
		if len(spans) == 0 {
			return n
		}
		v := newView(s, spans, len(s))
		n = max(n, maxMatch(v.y))
		found := find(v.y, scan(v.y, 0, nil), nil, nil)
		if len(found) == 0 {
			return n
		}
		for _, sp := range found {
			spans = append(spans, v.spanToS(sp))
		}
		spans = merge(spans)
		for _, sp := range spans {
			n = max(n, sp.end-sp.start)
		}
	}
	return len(s)
}

// TestPrecheckRead: a precheck that fails has read nothing past
// precheckRead: whatever follows there, it fails again.
func TestPrecheckRead(t *testing.T) {
	data, err := os.ReadFile("testdata/lookalikes.txt")
	if err != nil {
		t.Fatal(err)
	}
	texts := strings.SplitAfter(string(data), "\n")
	for _, tc := range secrets {
		texts = append(texts, tc.in)
	}
	texts = append(texts, lookalikes...)
	// Name bytes and newlines up to the operator, then newlines and a
	// short value: as far as assignAhead reads.
	for k := 40; k < assignSkip+8; k++ {
		texts = append(texts, "api_key"+strings.Repeat("\n", k)+"=\n\n\nab c", "secret"+strings.Repeat(" ", k)+"=  ab\n\n")
	}
	tails := []string{"", "=", "\n", " = 'aB3cD4eF5gH6iJ7kL8mN9oP0'", "aB3cD4eF5gH6iJ7kL8mN9oP0\n", "cD4eF5gH6iJ7kL8mN9oP0", ": \"x\"", strings.Repeat(" ", 70) + "= aB3cD4eF5gH6iJ7kL8"}
	n := 0
	for i, a := range texts {
		// A text and the next, so that a line goes on past its end.
		s := a + texts[(i+1)%len(texts)]
		for _, h := range scan(s, 0, nil) {
			r := rules[h.rule]
			if prechecks(s, h.pos, r) {
				continue
			}
			n++
			end := precheckRead(s, h.pos, r)
			for _, tail := range tails {
				if u := s[:end] + tail; prechecks(u, h.pos, r) {
					t.Fatalf("%s at %d of %q: the prechecks fail, but pass on %q", r.name, h.pos, s, u)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d failed prechecks tried", n)
	}
}

// TestStreamGlued: corpus secrets, keys, values, separators and markers
// glued at random and cut into random deltas come out of a Stream as
// String gives them (where the invariant's precondition holds).
func TestStreamGlued(t *testing.T) {
	pieces := append(append([]string{}, glue...),
		"api_key: ", "SECRET=", "token=", "password: '", "Authorization: Bearer ", "https://u:", "@h", "AKIA", "xoxb-",
		"-----BEGIN RSA PRIVATE KEY-----\n", "\n-----END RSA PRIVATE KEY-----", "client_secret", ":5432:",
		"machine h login u password ", "\t", ";", "&", "$", "{{", "}}", "EXAMPLE", "aws_secret_access_key = ")
	rng := rand.New(rand.NewPCG(7, 11))
	for range 4000 / splitStride {
		var b strings.Builder
		for range 2 + rng.IntN(7) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		in := b.String()
		out := String(in)
		if again := String(out); again != out {
			t.Fatalf("String(%q) = %q; String of that = %q", in, out, again)
		}
		var deltas []string
		for i := 0; i < len(in); {
			k := 1 + rng.IntN(12)
			deltas = append(deltas, in[i:min(i+k, len(in))])
			i += k
		}
		if maxSettled(in) >= swallowAt || maxAtDeltas(deltas) >= swallowAt {
			continue
		}
		if got := feed(t, deltas); got != out {
			t.Fatalf("Stream(%q in %q) = %q; String = %q", in, deltas, got, out)
		}
	}
}

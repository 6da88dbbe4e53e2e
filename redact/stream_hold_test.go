package redact

import (
	"strings"
	"testing"
)

// TestStreamEmitsSettledSecret: a long secret that two bytes follow is
// complete, and goes out at once with the space after it; only the word
// at the end waits (it may still grow into a credential path).
func TestStreamEmitsSettledSecret(t *testing.T) {
	key := "ghp_" + rep(an, 36) + rep(an, 250)
	var s Stream
	if got := s.Push(key + " x"); got != Marker+" " {
		t.Fatalf("Push = %q; want the marker and the space at once", got)
	}
	if got := s.Flush(); got != "x" {
		t.Fatalf("Flush = %q", got)
	}
}

// TestStreamHoldsGrowingPath: a credential path that reaches the end of
// the window may still grow: it is held from its start up to 2*Holdback
// bytes, so that the output equals String; past that it goes out as it
// stands.
func TestStreamHoldsGrowingPath(t *testing.T) {
	for _, n := range []int{300, 2*Holdback - len("~/.ssh/"), 2*Holdback - len("~/.ssh/") - 1} {
		in := "cat ~/.ssh/" + rep(an, n) + "xyz done"
		cut := len("cat ~/.ssh/") + n
		var s Stream
		first := s.Push(in[:cut])
		if first != "cat " {
			t.Errorf("%d bytes: first Push = %q; want the path held", n, first)
		}
		if got, want := first+s.Push(in[cut:])+s.Flush(), String(in); got != want {
			t.Errorf("%d bytes: Stream = %q; String = %q", n, got, want)
		}
	}
	// Past twice the bound the path is redacted as it stands; what follows
	// in its run is still part of it.
	n := 2*Holdback - len("~/.ssh/") + 1
	var s Stream
	if got := s.Push("cat ~/.ssh/" + rep(an, n)); got != "cat "+Marker {
		t.Errorf("%d bytes: Push = %q; want the path redacted as it stands", n, got)
	}
	if got := s.Push("xyz done") + s.Flush(); got != Marker+" done" {
		t.Errorf("rest = %q", got)
	}
}

// TestStreamDropEnds: while the rest of a long token is dropped, "--" ends
// it (a private-key block may begin there, also across deltas), an empty
// delta changes nothing, and the last dropped byte is the context of what
// follows.
func TestStreamDropEnds(t *testing.T) {
	long := "sk-" + rep(an, 400) // past Holdback: the marker goes out, the rest is dropped
	body := "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn"
	block := "-----BEGIN RSA PRIVATE KEY-----\n" + body + "\n-----END RSA PRIVATE KEY-----"
	for _, deltas := range [][]string{
		{long, "", "abc" + block + " end"},
		{long, "abc-", block + " end"},
		{long + "-", "abc", "://admin:s3cr3tpass@host end"},
	} {
		var s Stream
		out := ""
		for _, d := range deltas {
			out += s.Push(d)
		}
		out += s.Flush()
		if !strings.HasPrefix(out, Marker) || !strings.HasSuffix(out, " end") ||
			strings.Contains(out, body) || strings.Contains(out, "s3cr3tpass") || strings.Contains(out, rep(an, 20)) {
			t.Errorf("Stream(%q) = %q", deltas, out)
		}
	}
}

// TestRuneStarts: the cut of a Stream moves back to the start of a UTF-8
// sequence (runeStart, not below floor); invalid bytes count as sequences
// of one, so at most three bytes move.
func TestRuneStarts(t *testing.T) {
	for _, tc := range []struct {
		b           string
		i           int
		floor, back int
	}{
		{"aéb", 2, 0, 1},
		{"aéb", 1, 0, 1},
		{"a😀b", 3, 0, 1},
		{"a😀b", 3, 2, 2},
		{"a\x80\x80", 1, 0, 0},
		{"a\x80\x80", 2, 1, 1},
		{"a\x80\x80\x80\x80b", 4, 0, 4},
		{"a\x80\x80\x80\x80b", 1, 0, 0},
		{"\x80\x80x", 1, 0, 0},
	} {
		if got := runeStart([]byte(tc.b), tc.i, tc.floor); got != tc.back {
			t.Errorf("runeStart(%q, %d, %d) = %d; want %d", tc.b, tc.i, tc.floor, got, tc.back)
		}
	}
}

// TestStreamFooterIsContext: after a private-key block too long to hold,
// its footer is the context of what follows, as in String: "KEY-----," is
// a keyword and an operator, so the value after it is redacted too.
func TestStreamFooterIsContext(t *testing.T) {
	pem := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + strings.Repeat(rep(an, 64)+"\n", 4) + "-----END OPENSSH PRIVATE KEY-----"
	in := pem + ", dop_v1_" + rep(hex, 64) + "id_ed25519.pub and more"
	want := String(in)
	if want != Marker+", "+Marker+".pub and more" {
		t.Fatalf("String = %q", want)
	}
	for _, n := range []int{1, 7, 40, 97} {
		if got := feed(t, cutEvery(in, n)); got != want {
			t.Errorf("deltas of %d: Stream = %q; String = %q", n, got, want)
		}
	}
}

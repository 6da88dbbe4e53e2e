package conformance

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// A frame of exactly MaxOutputFrameBytes (LF included) passes the framing
// check; one byte more fails it, and the message numbers frames from 1.
func TestFrameAtTheBound(t *testing.T) {
	frame := func(n int) []byte {
		head := `{"x":"`
		return []byte(head + strings.Repeat("a", n-len(head)-3) + "\"}\n")
	}
	s := newStream()
	if _, v := s.frame(frame(protocol.MaxOutputFrameBytes)); v != nil && v.Check == CheckFraming {
		t.Errorf("a frame of exactly %d bytes: %v; want no framing violation", protocol.MaxOutputFrameBytes, v)
	}
	_, v := s.frame(frame(protocol.MaxOutputFrameBytes + 1))
	if v == nil || v.Check != CheckFraming || !strings.HasPrefix(v.Msg, "frame 2 has 65537 bytes") {
		t.Errorf("a frame of %d bytes: %v; want the framing check naming frame 2", protocol.MaxOutputFrameBytes+1, v)
	}
}

// firstLine keeps the first n lines of a message, joined with " | ".
func TestFirstLine(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"a\nb\nc\nd", 3, "a | b | c"},
		{"a\nb", 3, "a | b"},
		{"only", 1, "only"},
		{"a\nb", 1, "a"},
		{"", 2, ""},
		{"a\n", 2, "a | "},
		{"a\nb", 0, ""},
	} {
		if got := firstLine(c.s, c.n); got != c.want {
			t.Errorf("firstLine(%q, %d) = %q; want %q", c.s, c.n, got, c.want)
		}
	}
}

// A placeholder is "$" and one or more of _, a-z, A-Z and 0-9.
func TestPlaceholderBytes(t *testing.T) {
	for _, s := range []string{"$a", "$z", "$A", "$Z", "$0", "$9", "$_", "$run_ID2"} {
		if name, ok := placeholder(s); !ok || name != s[1:] {
			t.Errorf("placeholder(%q) = %q, %v; want %q", s, name, ok, s[1:])
		}
	}
	for _, s := range []string{"$", "a", "$`", "${", "$@", "$[", "$/", "$:", "$a-b", "$é"} {
		if _, ok := placeholder(s); ok {
			t.Errorf("placeholder(%q) accepted", s)
		}
	}
}

// short keeps 120 bytes as they are and cuts longer text to 117 and "...".
func TestShort(t *testing.T) {
	exact := strings.Repeat("a", 118) // canonical adds the quotes: 120 bytes
	if got := short(exact); got != `"`+exact+`"` {
		t.Errorf("short(120 bytes) = %q; want it whole", got)
	}
	if got := short(exact + "b"); len(got) != 120 || !strings.HasSuffix(got, "...") {
		t.Errorf("short(121 bytes) = %q; want 117 bytes and ...", got)
	}
}

// substitute replaces a placeholder also at the very start of the line.
func TestSubstituteAtStart(t *testing.T) {
	got, err := substitute(`"$id","$id"`, bindings{"id": `"r1"`})
	if err != nil || got != `"r1","r1"` {
		t.Errorf("substitute = %q, %v; want both replaced", got, err)
	}
}

// A failure names its transcript line when it has one.
func TestFailureText(t *testing.T) {
	if got := (&Failure{Msg: "stream ended"}).Error(); got != "stream ended" {
		t.Errorf("Failure without a line = %q", got)
	}
	if got := (&Failure{Line: 3, Msg: "no match"}).Error(); got != "line 3: no match" {
		t.Errorf("Failure at line 3 = %q", got)
	}
}

// Transcript steps carry their line in the transcript file, from 1, and a
// bad line is named by its number.
func TestParseLineNumbers(t *testing.T) {
	tr, err := Parse("t", []byte("conformance: any server\n-- transcript --\n# a comment\n\n> {\"id\":\"1\"}\nclose\n"))
	if err != nil || len(tr.Steps) != 2 || tr.Steps[0].Line != 3 || tr.Steps[1].Line != 4 {
		t.Fatalf("Parse = %+v, %v; want steps at lines 3 and 4", tr, err)
	}
	if _, err := Parse("t", []byte("-- transcript --\nclose\nbogus\n")); err == nil || !strings.Contains(err.Error(), "2") {
		t.Errorf("Parse(bad line 2) = %v; want an error naming line 2", err)
	}
}

package chunk

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magi-code/magi-code/internal/benchcpu"
	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
)

func checkParts(t *testing.T, s string, raw, esc int) {
	t.Helper()
	parts := Split(s, raw, esc)
	if got := strings.Join(parts, ""); got != s {
		t.Fatalf("Split(%q) does not rejoin", s)
	}
	for i, p := range parts {
		if len(p) > raw {
			t.Fatalf("part %d has %d raw bytes > %d", i, len(p), raw)
		}
		if e := jsonenc.EscapedLen(p); e > esc {
			t.Fatalf("part %d has %d escaped bytes > %d", i, e, esc)
		}
		if utf8.ValidString(s) && !utf8.ValidString(p) {
			t.Fatalf("part %d splits a UTF-8 sequence", i)
		}
		if len(parts) > 1 && len(p) == 0 {
			t.Fatalf("empty part %d", i)
		}
	}
}

func TestSplit(t *testing.T) {
	cases := []struct {
		name     string
		s        string
		raw, esc int
		want     int
	}{
		{"empty", "", 4000, 4000, 1},
		{"one byte", "a", 4000, 4000, 1},
		{"exact", strings.Repeat("a", 4000), 4000, 4000, 1},
		{"one over", strings.Repeat("a", 4001), 4000, 4000, 2},
		{"emoji boundary", strings.Repeat("a", 3999) + "😀", 4000, 4000, 2},
		{"escapes shrink parts", strings.Repeat("\x01", 100), 100, 60, 10},
		{"quotes", strings.Repeat(`"`, 10), 100, 10, 2},
		{"cjk", strings.Repeat("漢", 3000), 4000, 16384, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts := Split(c.s, c.raw, c.esc)
			if len(parts) != c.want {
				t.Fatalf("Split(%q...) = %d parts; want %d", c.s[:min(len(c.s), 8)], len(parts), c.want)
			}
			checkParts(t, c.s, c.raw, c.esc)
		})
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("hello", 4, 6)
	f.Add("😀漢\x01\"\\", 5, 7)
	f.Add(strings.Repeat("é", 100), 4000, 100)
	f.Fuzz(func(t *testing.T, s string, raw, esc int) {
		raw = 4 + abs(raw)%5000
		esc = 6 + abs(esc)%5000
		checkParts(t, s, raw, esc)
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n {
			return 0
		}
		return -n
	}
	return n
}

func BenchmarkNext(b *testing.B) {
	s := strings.Repeat("héllo wörld ", 400)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		for r := s; len(r) > 0; {
			r = r[Next(r, protocol.LiveChunkBytes, 16000):]
		}
	}
}

// nextSlow is Next one rune at a time: the definition.
func nextSlow(s string, raw, esc int) int {
	n, e := 0, 0
	for n < len(s) {
		de, size := jsonenc.RuneLen(s[n:])
		if n+size > raw || e+de > esc {
			break
		}
		n += size
		e += de
	}
	return n
}

func FuzzNextMatchesDefinition(f *testing.F) {
	f.Add("plain text", 4, 6)
	f.Add("quote \" é \xff \x00 tail", 7, 11)
	f.Fuzz(func(t *testing.T, s string, raw, esc int) {
		raw, esc = 4+abs(raw%64), 6+abs(esc%128)
		if got, want := Next(s, raw, esc), nextSlow(s, raw, esc); got != want {
			t.Fatalf("Next(%q, %d, %d) = %d; want %d", s, raw, esc, got, want)
		}
	})
}

// BenchmarkNextASCII is the live case: a 4,000-byte part of plain text.
func BenchmarkNextASCII(b *testing.B) {
	s := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz .", 110)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		Next(s, protocol.LiveChunkBytes, 16000)
	}
}

// BenchmarkNextLive is the live case as the turn sink calls it: a part of
// at most 4,000 bytes of a frame whose escaped budget cannot bind.
func BenchmarkNextLive(b *testing.B) {
	s := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz .", 110)
	const liveEsc = protocol.MaxOutputFrameBytes - 4*192 - 3*protocol.ActivityInternalIDBytes
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		Next(s, protocol.LiveChunkBytes, liveEsc)
	}
}

// TestBounded: the first part never splits a UTF-8 sequence and always
// makes progress, on text that is not UTF-8 too; at most n parts, and
// truncated says whether text was left.
func TestBounded(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want int
	}{{"abcdef", 4, 4}, {"ab€def", 3, 2}, {"ab€def", 4, 2}, {"ab€def", 5, 5}, {"a😀b", 4, 1}, {"a😀b", 5, 5},
		{"\x80\x80\x80\x80\x80\x80", 5, 5}, {"€€", 4, 3}} {
		parts, _ := Bounded(c.s, c.max, 1)
		if len(parts) != 1 || len(parts[0]) != c.want {
			t.Errorf("Bounded(%q, %d, 1) = %q; want a first part of %d bytes", c.s, c.max, parts, c.want)
		}
	}
	for _, c := range []struct {
		s         string
		n         int
		parts     int
		truncated bool
	}{{"", 4, 0, false}, {"abcd", 4, 1, false}, {"abcdefghijklmnop", 4, 4, false}, {"abcdefghijklmnopq", 4, 4, true}, {"€€€€€€", 2, 2, true}} {
		parts, truncated := Bounded(c.s, 4, c.n)
		if len(parts) != c.parts || truncated != c.truncated || strings.Join(parts, "") != c.s[:len(strings.Join(parts, ""))] {
			t.Errorf("Bounded(%q, 4, %d) = %q, %v", c.s, c.n, parts, truncated)
		}
	}
}

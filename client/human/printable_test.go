package human

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\nsecond line", "plain text\nsecond line"},
		{"ls\x1b]0; touch ~/x #\a", "ls␛]0; touch ~/x #␇"},
		{"\x1b[2J\x1b[?1049h", "␛[2J␛[?1049h"},
		{"a\r\nb", "a\nb"},
		{"safe\rrm -rf", "safe␍rm -rf"},
		{"\x00\x7f", "␀␡"},
		{"\u009b31m", "<U+009B>31m"},       // C1 CSI as a character
		{"x\x9by", "x\uFFFDy"},             // C1 CSI as a raw byte: not UTF-8
		{"abc\u202Edef", "abc<U+202E>def"}, // bidi override
		{"a\u2066b\u2069", "a<U+2066>b<U+2069>"},
		{"zero\u200bwidth\ufeff", "zero<U+200B>width<U+FEFF>"},
		{"line\u2028sep", "line<U+2028>sep"},
		{"👩\u200d💻", "👩\u200d💻"}, // ZWJ stays
		{"\tx", "    x"},
		{"ab\tx", "ab  x"},
		{"abcd\tx", "abcd    x"},
		{"a\n\tb", "a\n    b"},
		{"日本\tx", "日本    x"}, // 4 columns wide already: the next stop
	} {
		if got := Printable(c.in); got != c.want {
			t.Errorf("Printable(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

// FuzzPrintable: whatever the bytes, what leaves Printable is valid UTF-8
// with no control character but LF (no C0, no ESC, no DEL, no C1), no
// bidirectional or invisible format character but ZWJ and ZWNJ; the
// printable text goes through in order; and it is idempotent.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "hello", "ls\x1b]0;x\a", "\x1b[31mred\x1b[0m", "\x9b2J", "\u009b2J", "a\tb\r\nc\rd", "\u202e\u2066\u200b", "\xff\xfe", "é👩\u200d💻"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Printable(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Printable(%q) = %q: not UTF-8", s, out)
		}
		for _, r := range out {
			if r == '\n' {
				continue
			}
			if unicode.IsControl(r) || (unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d') || r == '\u2028' || r == '\u2029' {
				t.Fatalf("Printable(%q) = %q holds %U", s, out, r)
			}
		}
		if strings.Count(out, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Printable(%q) = %q: line count changed", s, out)
		}
		// The printable characters of s are kept, in order.
		var kept []rune
		for _, r := range s {
			if r != utf8.RuneError && !unicode.IsControl(r) && !hidden(r) {
				kept = append(kept, r)
			}
		}
		rest := out
		for _, r := range kept {
			i := strings.IndexRune(rest, r)
			if i < 0 {
				t.Fatalf("Printable(%q) = %q lost %q", s, out, r)
			}
			rest = rest[i+utf8.RuneLen(r):]
		}
		if again := Printable(out); again != out {
			t.Fatalf("Printable is not idempotent: %q, then %q", out, again)
		}
		if v := Visible(s, 1<<20); strings.ContainsFunc(v, unicode.IsControl) {
			t.Fatalf("Visible(%q) = %q holds a control", s, v)
		}
	})
}

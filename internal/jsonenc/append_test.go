package jsonenc

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magi-code/magi-code/internal/benchcpu"
)

// plainPrefixSlow is PlainPrefix one byte at a time: the definition.
func plainPrefixSlow(s string) int {
	i := 0
	for i < len(s) && Plain(s[i]) {
		i++
	}
	return i
}

// TestPlainPrefixEveryByteEveryOffset puts each of the 256 byte values at
// each offset of a 20-byte plain string: the word-at-a-time scan must stop
// exactly where the byte-at-a-time definition does.
func TestPlainPrefixEveryByteEveryOffset(t *testing.T) {
	base := strings.Repeat("abcdefghij", 2)
	for c := 0; c < 256; c++ {
		for at := 0; at < len(base); at++ {
			s := base[:at] + string([]byte{byte(c)}) + base[at+1:]
			if got, want := PlainPrefix(s), plainPrefixSlow(s); got != want {
				t.Fatalf("PlainPrefix(%q) = %d; want %d", s, got, want)
			}
		}
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{
		"", "plain ascii text of some length", `quote " and \ backslash`,
		"tab\tnewline\nreturn\rbell\x07", "héllo wörld ✓ 😀", "bad \xff utf8 \xc3",
		"<html>&amp;</html>", strings.Repeat("0123456789", 50) + "\x01",
	}
	for _, s := range cases {
		got := string(AppendString(nil, s))
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Fatalf("AppendString(%q) = %s: not JSON: %v", s, got, err)
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if back != want {
			t.Fatalf("AppendString(%q) decodes to %q; want %q", s, back, want)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("AppendString(%q) = %q: not UTF-8", s, got)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("plain")
	f.Add("quote \" \\ \x00 \xff é")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := PlainPrefix(s), plainPrefixSlow(s); got != want {
			t.Fatalf("PlainPrefix(%q) = %d; want %d", s, got, want)
		}
		got := AppendString(nil, s)
		if want := appendStringSlow(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s; byte-at-a-time %s", s, got, want)
		}
		if len(got)-2 != EscapedLen(s) {
			t.Fatalf("len(AppendString(%q)) = %d; EscapedLen = %d", s, len(got)-2, EscapedLen(s))
		}
	})
}

func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.", 2)[:100]
	dst := make([]byte, 0, 256)
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = AppendString(dst[:0], s)
	}
}

// appendStringSlow is AppendString one byte at a time: the definition.
func appendStringSlow(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case safeASCII[b]:
				dst = append(dst, b)
			case b == '"' || b == '\\':
				dst = append(dst, '\\', b)
			case b == '\n':
				dst = append(dst, '\\', 'n')
			case b == '\r':
				dst = append(dst, '\\', 'r')
			case b == '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// BenchmarkAppendString4000 is one reconcile part: 4,000 plain bytes.
func BenchmarkAppendString4000(b *testing.B) {
	s := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz .", 110)[:4000]
	dst := make([]byte, 0, 8192)
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = AppendString(dst[:0], s)
	}
}

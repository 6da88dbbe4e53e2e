package jsonenc

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// safeASCII[b] is true when ASCII byte b needs no escaping in a JSON string.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// AppendString appends s as a JSON string literal. Control characters are
// escaped; invalid UTF-8 is replaced by U+FFFD so the output is always valid
// JSON and valid UTF-8. It does not allocate when dst has room.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safeASCII[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Plain reports whether byte b stands for itself inside a JSON string as
// AppendString writes it: ASCII that needs no escape.
func Plain(b byte) bool { return b < utf8.RuneSelf && safeASCII[b] }

// RuneLen returns how many bytes AppendString writes for the rune starting at
// s[0] (s must be nonempty), and how many bytes of s that rune takes.
func RuneLen(s string) (esc, size int) {
	b := s[0]
	if b < utf8.RuneSelf {
		switch {
		case safeASCII[b]:
			return 1, 1
		case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t':
			return 2, 1
		default:
			return 6, 1
		}
	}
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n == 1 {
		return 6, 1 // written as \ufffd
	}
	return n, n
}

// EscapedLen returns the length AppendString would add for s, excluding the
// two quotes.
func EscapedLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if safe := s[i] < utf8.RuneSelf && safeASCII[s[i]]; safe {
			n++
			i++
			continue
		}
		e, size := RuneLen(s[i:])
		n += e
		i += size
	}
	return n
}

package chunk

import "unicode/utf8"

// plain[b] is true for ASCII bytes that JSON carries unescaped.
var plain = func() (t [256]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// escapedSize returns how many bytes the JSON encoding of the rune starting
// at s[0] takes (without quotes), and the rune's length in s.
func escapedSize(s string) (esc, size int) {
	b := s[0]
	if b < utf8.RuneSelf {
		switch {
		case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t':
			return 2, 1
		case b < 0x20:
			return 6, 1
		default:
			return 1, 1
		}
	}
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n == 1 {
		return 6, 1 // encoded as \ufffd
	}
	return n, n
}

// Next returns the length of the longest prefix of s that fits within raw
// bytes and within esc bytes once JSON-escaped, ending on a rune boundary.
// It returns at least one rune when s is nonempty and the budgets allow any
// rune (raw >= 4 and esc >= 6 always do). It does not allocate.
func Next(s string, raw, esc int) int {
	n, e := 0, 0
	for n < len(s) {
		if plain[s[n]] {
			// ASCII that needs no escaping: one byte raw, one escaped.
			if n >= raw || e >= esc {
				break
			}
			n++
			e++
			continue
		}
		de, size := escapedSize(s[n:])
		if n+size > raw || e+de > esc {
			break
		}
		n += size
		e += de
	}
	return n
}

// Split returns the parts of s, each at most raw bytes and at most esc bytes
// once escaped. An empty s yields one empty part, so that every message has
// a part 0. Budgets must allow one rune (raw >= 4, esc >= 6).
func Split(s string, raw, esc int) []string {
	if raw < utf8.UTFMax || esc < 6 {
		panic("chunk: budget smaller than one rune")
	}
	if s == "" {
		return []string{""}
	}
	var parts []string
	for len(s) > 0 {
		n := Next(s, raw, esc)
		parts = append(parts, s[:n])
		s = s[n:]
	}
	return parts
}

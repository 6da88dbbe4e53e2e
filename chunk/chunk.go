package chunk

import (
	"unicode/utf8"

	"github.com/magi-code/magi-code/internal/jsonenc"
)

// Next returns the length of the longest prefix of s that fits within raw
// bytes and within esc bytes once JSON-escaped, ending on a rune boundary.
// It returns at least one rune when s is nonempty and the budgets allow any
// rune (raw >= 4 and esc >= 6 always do). It does not allocate.
func Next(s string, raw, esc int) int {
	if esc >= maxEscape*min(raw, len(s)) {
		// The escaped budget cannot bind (a byte escapes to at most
		// maxEscape bytes): the part is the raw budget's, backed off to a
		// rune boundary. The live case, 4,000 raw bytes in a frame, ends
		// here without reading the text.
		return cut(s, raw)
	}
	n, e := 0, 0
	for n < len(s) {
		// A run of ASCII that needs no escaping costs one raw and one
		// escaped byte a byte: take as much of it as both budgets allow,
		// eight bytes at a time.
		if room := min(len(s)-n, raw-n, esc-e); room > 0 {
			k := jsonenc.PlainPrefix(s[n : n+room])
			n, e = n+k, e+k
			if n == len(s) || k == room && jsonenc.Plain(s[n]) {
				break
			}
		} else if jsonenc.Plain(s[n]) {
			break
		}
		de, size := jsonenc.RuneLen(s[n:])
		if n+size > raw || e+de > esc {
			break
		}
		n += size
		e += de
	}
	return n
}

// maxEscape is the most bytes one byte of text takes once JSON-escaped: a
// control character or an invalid byte becomes a six-byte \u escape.
const maxEscape = 6

// cut returns the longest prefix of s of at most raw bytes that ends on a
// rune boundary, as utf8.DecodeRuneInString reads s from its start (an
// invalid byte is a rune of its own). raw >= utf8.UTFMax keeps it nonzero.
func cut(s string, raw int) int {
	if len(s) <= raw {
		return len(s)
	}
	// A byte that is not a continuation byte always starts a rune; a rune
	// is at most utf8.UTFMax bytes, so its start is at most 3 bytes back.
	for q := raw; q >= 0 && q > raw-utf8.UTFMax; q-- {
		if utf8.RuneStart(s[q]) {
			if q == raw {
				return raw
			}
			if _, size := utf8.DecodeRuneInString(s[q:]); q+size > raw {
				return q // raw falls inside the rune that starts at q
			}
			return raw // the bytes after q are invalid, one rune each
		}
	}
	return raw // only continuation bytes: each an invalid rune of its own
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

// Bounded cuts s into at most n parts of at most raw bytes each, each
// ending on a rune boundary as cut reads them, and reports whether s went
// on past them. An empty s has no parts. raw >= utf8.UTFMax.
func Bounded(s string, raw, n int) (parts []string, truncated bool) {
	for len(s) > 0 && len(parts) < n {
		k := cut(s, raw)
		parts = append(parts, s[:k])
		s = s[k:]
	}
	return parts, len(s) > 0
}

// Package jsonenc is the one place that knows JSON string literals
// (RFC 8259, section 7): AppendString and EscapedLen encode for the frame
// encoders and the history projection, Unescape decodes escape sequences for
// both strict JSON readers (request validation and the session store's line
// decoder), and Size gives one rune's escaped length for the chunker.
//
// It knows bytes, escapes and surrogate pairs; it does not know frames,
// records or where a string starts and ends. It allocates only by growing
// the caller's dst, starts no goroutine and does no I/O.
package jsonenc

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Unescape decodes the escape sequence at the start of b (b[0] must be a
// backslash) and appends its UTF-8 to dst. It returns the extended dst and
// the number of bytes of b the escape took (2, 6, or 12 for a surrogate
// pair). ok is false for anything JSON does not allow, and for a lone
// surrogate: an unknown escape letter, fewer than four hex digits after
// \u, a low surrogate alone, or a high surrogate not followed at once by an
// escaped low one. A string with a lone surrogate escape is not valid
// (spec decision: a lone surrogate escape anywhere is invalid_request).
func Unescape(dst, b []byte) (out []byte, n int, ok bool) {
	// Small enough to inline: the two-byte escapes never pay for a call.
	if len(b) >= 2 && b[0] == '\\' {
		if c := simple[b[1]]; c != 0 {
			return append(dst, c), 2, true
		}
	}
	return unescapeU(dst, b)
}

// Len returns the length of the escape at the start of b (2, 6 or 12) when
// Unescape accepts it, without decoding it: for scanners that only
// validate.
func Len(b []byte) (n int, ok bool) {
	if len(b) >= 2 && b[0] == '\\' && simple[b[1]] != 0 {
		return 2, true
	}
	var scratch [utf8.UTFMax]byte // the decoded rune, unused
	_, n, ok = unescapeU(scratch[:0], b)
	return n, ok
}

// simple maps the letter of each two-byte escape to the byte it stands for;
// 0 marks every other byte.
var simple = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescapeU is Unescape for a \u escape (and the refusal of anything else).
func unescapeU(dst, b []byte) ([]byte, int, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return dst, 0, false
	}
	r, ok := hex4(b[2:])
	switch {
	case !ok:
		return dst, 0, false
	case !utf16.IsSurrogate(r):
		return utf8.AppendRune(dst, r), 6, true
	case r >= 0xDC00: // a low surrogate alone
		return dst, 0, false
	}
	if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
		return dst, 0, false // a high surrogate alone
	}
	lo, ok := hex4(b[8:])
	if !ok {
		return dst, 0, false
	}
	r = utf16.DecodeRune(r, lo)
	if r == utf8.RuneError { // lo is not a low surrogate
		return dst, 0, false
	}
	return utf8.AppendRune(dst, r), 12, true
}

// hex4 reads four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

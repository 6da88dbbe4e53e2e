package validate

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/magi-code/magi-code/internal/jsonenc"
)

// This file is a non-recursive JSON scanner over raw bytes. It validates
// syntax and string escapes (a lone surrogate escape is an error) and
// returns positions; it never builds values. Callers check UTF-8 first:
// bytes >= 0x80 are accepted inside strings without further checks.

// maxScanDepth bounds the scanner's container stack (one bit per level).
// Parse refuses more than protocol.MaxJSONDepth levels before scanning.
const maxScanDepth = 64

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// onlySpace reports whether b is empty or only JSON whitespace.
func onlySpace(b []byte) bool { return skipSpace(b, 0) == len(b) }

// tooDeep reports whether b nests more than limit containers, counting
// brackets outside strings. It runs before any other check, on input that
// may not be JSON at all; it only needs to agree with the scanner on valid
// JSON, where strings end at the first unescaped quote.
func tooDeep(b []byte, limit int) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			end := stringEnd(b, i)
			if end < 0 {
				return false // unterminated: no container follows
			}
			i = end
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// stringEnd returns the index of the quote closing the string that opens at
// b[open], or -1. A quote is escaped when an odd run of backslashes precedes
// it. Each backslash run is scanned once, so this is linear.
func stringEnd(b []byte, open int) int {
	for j := open + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		k += j
		run := 0
		for m := k - 1; m > open && b[m] == '\\'; m-- {
			run++
		}
		if run%2 == 0 {
			return k
		}
		j = k + 1
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special8 finds quotes, backslashes and control characters (< 0x20) in
// the 8 bytes of x (little-endian): the string fast path. The result is 0
// when there are none; otherwise its lowest set bit is the high bit of the
// first such byte (borrows only run upward, so only bytes after the first
// match can be flagged wrongly, and bytes >= 0x80 never match).
func special8(x uint64) uint64 {
	quote := x ^ (ones * '"')
	slash := x ^ (ones * '\\')
	return (((quote - ones) &^ quote) | ((slash - ones) &^ slash) | ((x - ones*0x20) &^ x)) & highs
}

// scanString validates the string that opens at b[i] == '"'. It returns the
// index after the closing quote and whether the string holds escapes. With
// lax, a lone surrogate escape is accepted as a six-byte escape (see
// scanEscape).
func scanString(b []byte, i int, lax bool) (end int, escaped, ok bool) {
	i++
	for {
		for i+8 <= len(b) {
			if m := special8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			return i, escaped, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			if i, ok = scanEscape(b, i, lax); !ok {
				return i, escaped, false
			}
		case c < 0x20:
			return i, escaped, false
		default:
			i++
		}
	}
}

// scanEscape validates the escape at b[i] == '\\' and returns the index
// after it. A high surrogate must be followed at once by an escaped low
// surrogate; a low surrogate alone is an error (jsonenc.Unescape). With lax,
// a lone surrogate escape (\uD800-\uDFFF, four hex digits) is accepted as
// six bytes: the recovery scan of Parse uses it to find the members of an
// object whose only fault is a lone surrogate.
func scanEscape(b []byte, i int, lax bool) (int, bool) {
	n, ok := jsonenc.Len(b[i:])
	if !ok && lax && loneSurrogate(b[i:]) {
		return i + 6, true
	}
	return i + n, ok
}

// loneSurrogate reports whether b starts with a \u escape of a surrogate
// code unit (D800-DFFF), four hex digits.
func loneSurrogate(b []byte) bool {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' || b[2]|0x20 != 'd' {
		return false
	}
	switch c := b[3] | 0x20; {
	case c == '8' || c == '9' || 'a' <= c && c <= 'f':
	default:
		return false
	}
	for _, c := range b[4:6] {
		if !isDigit(c) && !('a' <= c|0x20 && c|0x20 <= 'f') {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanNumber validates the number at b[i] and returns the index after it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	return i, true
}

// scanLiteral checks that b[i:] starts with word.
func scanLiteral(b []byte, i int, word string) (int, bool) {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}

// scanKey validates an object key and its colon at b[i] (after whitespace)
// and returns the index of the member's value (whitespace skipped).
func scanKey(b []byte, i int, lax bool) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, _, ok := scanString(b, i, lax)
	if !ok {
		return i, false
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return skipSpace(b, i+1), true
}

// scanValue validates one JSON value starting at b[i] (leading whitespace
// skipped) and returns the index just after it. It keeps an explicit stack
// of at most maxScanDepth levels: it never recurses. lax is as for
// scanString.
func scanValue(b []byte, i int, lax bool) (int, bool) {
	var objects uint64 // bit d is set when the container at depth d is an object
	depth := 0
	ok := true
values:
	for {
		// A value starts at b[i].
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if depth == maxScanDepth {
				return i, false
			}
			bit := uint64(1) << depth
			if c == '{' {
				objects |= bit
			} else {
				objects &^= bit
			}
			depth++
			i = skipSpace(b, i+1)
			if i < len(b) && (b[i] == '}' && c == '{' || b[i] == ']' && c == '[') {
				depth--
				i++
				break // An empty container is a complete value.
			}
			if c == '{' {
				if i, ok = scanKey(b, i, lax); !ok {
					return i, false
				}
			}
			continue values
		case c == '"':
			i, _, ok = scanString(b, i, lax)
		case c == 't':
			i, ok = scanLiteral(b, i, "true")
		case c == 'f':
			i, ok = scanLiteral(b, i, "false")
		case c == 'n':
			i, ok = scanLiteral(b, i, "null")
		default:
			i, ok = scanNumber(b, i)
		}
		if !ok {
			return i, false
		}
		// A value ended at b[i]: close containers until another value
		// starts or the outermost one ends.
		for depth > 0 {
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, false
			}
			inObject := objects>>(depth-1)&1 == 1
			switch b[i] {
			case ',':
				i = skipSpace(b, i+1)
				if inObject {
					if i, ok = scanKey(b, i, lax); !ok {
						return i, false
					}
				}
				continue values
			case '}':
				if !inObject {
					return i, false
				}
			case ']':
				if inObject {
					return i, false
				}
			default:
				return i, false
			}
			depth--
			i++
		}
		return i, true
	}
}

// decodeString appends the decoded content of a JSON string literal raw
// (without its quotes, already validated by scanString) to dst.
func decodeString(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		k := bytes.IndexByte(raw[i:], '\\')
		if k < 0 {
			return append(dst, raw[i:]...)
		}
		dst = append(dst, raw[i:i+k]...)
		i += k
		d, n, ok := jsonenc.Unescape(dst, raw[i:])
		if !ok { // not reached for validated input; never loop on the rest
			d, n = append(dst, raw[i]), 1
		}
		dst = d
		i += n
	}
	return dst
}

// decodeShort decodes raw (validated string content) into buf and returns
// the decoded bytes, or false when they would not fit in buf. It never
// allocates.
func decodeShort(buf []byte, raw []byte) ([]byte, bool) {
	if bytes.IndexByte(raw, '\\') < 0 {
		if len(raw) > len(buf) {
			return nil, false
		}
		return raw, true
	}
	// Each decoded byte takes at least one raw byte and at most 6 (an ASCII
	// \u escape); a surrogate pair takes 12 raw bytes for 4 decoded ones.
	// Anything longer than 6*len(buf) raw bytes cannot fit.
	if len(raw) > 6*len(buf) {
		return nil, false
	}
	var scratch [6 * 64]byte
	if len(buf) > 64 {
		panic("validate: decodeShort buffer larger than 64 bytes")
	}
	d := decodeString(scratch[:0], raw)
	if len(d) > len(buf) {
		return nil, false
	}
	return buf[:copy(buf, d)], true
}

// validUTF8 is utf8.Valid; Parse checks whole lines, the params helpers
// check what they return in case their input did not come through Parse.
func validUTF8(b []byte) bool { return utf8.Valid(b) }

package jsonenc

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

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
		i += PlainPrefix(s[i:])
		if i == len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
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

// SWAR masks: each byte of a word tested at once.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// PlainPrefix returns the length of the longest prefix of s made of bytes
// that stand for themselves in a JSON string (Plain), eight bytes at a time.
func PlainPrefix(s string) int {
	i := 0
	if len(s) >= 8 {
		b := unsafe.Slice(unsafe.StringData(s), len(s))
		// Four words per step while they are all plain (the common case
		// of long text), then one word at a time to find where it stops.
		for ; i+32 <= len(b); i += 32 {
			w := b[i : i+32 : i+32]
			if notPlain(binary.LittleEndian.Uint64(w[0:]))|notPlain(binary.LittleEndian.Uint64(w[8:]))|
				notPlain(binary.LittleEndian.Uint64(w[16:]))|notPlain(binary.LittleEndian.Uint64(w[24:])) != 0 {
				break
			}
		}
		for ; i+8 <= len(b); i += 8 {
			if m := notPlain(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				return i + bits.TrailingZeros64(m)/8
			}
		}
	}
	for i < len(s) && Plain(s[i]) {
		i++
	}
	return i
}

// notPlain returns a word whose lowest set high bit marks the first byte of
// w (little-endian) that is not Plain: a control byte (< 0x20), '"', '\\'
// or a byte >= 0x80. Bits above the lowest may be false alarms (a borrow),
// so only the lowest is meaningful.
func notPlain(w uint64) uint64 {
	ctl := (w - 0x20*lsb) &^ w // bytes < 0x20 (and some >= 0x80, flagged anyway)
	q := w ^ '"'*lsb           // zero bytes where w has '"'
	bs := w ^ '\\'*lsb         // zero bytes where w has '\\'
	return (ctl | ((q - lsb) &^ q) | ((bs - lsb) &^ bs) | w) & msb
}

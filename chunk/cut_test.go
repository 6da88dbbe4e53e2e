package chunk

import (
	"strings"
	"testing"
)

// TestNextWideEscapeBudget holds the path where the escaped budget cannot
// bind (the live one) to the definition, at every raw budget across runes
// of every length, invalid bytes, truncated and overlong sequences.
func TestNextWideEscapeBudget(t *testing.T) {
	pieces := []string{"a", "é", "漢", "😀", "\xff", "\x80", "\x80\x80\x80\x80", "\xe2\x82", "\xf0\x9f\x98",
		"\xc0\xaf", "\xed\xa0\x80", "\"", "\x01", "\\"}
	for i, p := range pieces {
		for j, q := range pieces {
			s := strings.Repeat("x", i%4) + p + q + p + strings.Repeat("y", j%3) + q
			for raw := 4; raw <= len(s)+1; raw++ {
				for _, esc := range []int{maxEscape * raw, maxEscape*raw + 7, 1 << 20} {
					if got, want := Next(s, raw, esc), nextSlow(s, raw, esc); got != want {
						t.Fatalf("Next(%q, %d, %d) = %d; want %d", s, raw, esc, got, want)
					}
				}
			}
		}
	}
}

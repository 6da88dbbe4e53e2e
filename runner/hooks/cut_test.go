package hooks

import "testing"

// cutAt keeps a string of exactly its bound whole, and otherwise cuts at
// the last rune start at or before the bound: never inside a multi-byte
// rune, and to nothing when only continuation bytes come before it.
func TestCutAt(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
		cut  bool
	}{
		{"abcd", 4, "abcd", false},
		{"abcde", 4, "abcd", true},
		{"ab€cd", 3, "ab", true},       // € is 3 bytes from offset 2
		{"ab€cd", 4, "ab", true},       // a cut inside it backs up to its start
		{"ab€cd", 5, "ab€", true},      // the bound right after it keeps it
		{"\x80\x80\x80x", 2, "", true}, // continuation bytes only: nothing
	} {
		got, cut := cutAt(c.s, c.max)
		if got != c.want || cut != c.cut {
			t.Errorf("cutAt(%q, %d) = %q, %v; want %q, %v", c.s, c.max, got, cut, c.want, c.cut)
		}
	}
}

package subproc

import (
	"bytes"
	"testing"
)

func TestCapped(t *testing.T) {
	tests := []struct {
		name      string
		limit     int
		writes    []string
		want      string
		truncated bool
		dropped   bool
	}{
		{"nothing", 4, nil, "", false, false},
		{"under", 4, []string{"ab", "c"}, "abc", false, false},
		{"exactly limit", 4, []string{"abcd"}, "abcd", false, false},
		{"limit plus one", 4, []string{"abc", "de"}, "abcde", true, false},
		{"over", 4, []string{"abcdef"}, "abcde", true, true},
		{"over across writes", 4, []string{"abc", "de", "f"}, "abcde", true, true},
		{"zero limit", 0, []string{"a"}, "a", true, false},
		{"zero limit over", 0, []string{"a", "b"}, "a", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Capped{Limit: tc.limit}
			for _, w := range tc.writes {
				if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
			}
			if got := c.Bytes(); !bytes.Equal(got, []byte(tc.want)) {
				t.Errorf("Bytes() = %q; want %q", got, tc.want)
			}
			if got := c.Truncated(); got != tc.truncated {
				t.Errorf("Truncated() = %v; want %v", got, tc.truncated)
			}
			if got := c.Dropped(); got != tc.dropped {
				t.Errorf("Dropped() = %v; want %v", got, tc.dropped)
			}
		})
	}
}

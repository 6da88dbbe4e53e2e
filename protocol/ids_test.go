package protocol

import (
	"regexp"
	"strings"
	"testing"
)

func TestIDGrammars(t *testing.T) {
	idRE := regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	sessionRE := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	cases := []string{"", "a", "r1", "a.b", "a_b-c", "a b", "é", "a/b", "a\x00",
		strings.Repeat("x", 64), strings.Repeat("x", 65), "..", "-", "A.Z.0.9"}
	for c := 0; c < 256; c++ {
		cases = append(cases, string([]byte{byte(c)}), "x"+string([]byte{byte(c)}))
	}
	for _, s := range cases {
		if got, want := ValidID(s), idRE.MatchString(s); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", s, got, want)
		}
		if got, want := ValidIDBytes([]byte(s)), idRE.MatchString(s); got != want {
			t.Errorf("ValidIDBytes(%q) = %v, want %v", s, got, want)
		}
		if got, want := ValidSessionID(s), sessionRE.MatchString(s); got != want {
			t.Errorf("ValidSessionID(%q) = %v, want %v", s, got, want)
		}
	}
}

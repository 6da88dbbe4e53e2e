package chunk

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestNextEscapeBudgetBindsPlainRuns: escaped bytes spent before a run of
// plain ASCII count against the run; a part never exceeds the escaped
// budget. The history case: 1,000 control characters (6,000 escaped
// bytes) and then 15,000 plain bytes under 16,384 raw and 20,000 escaped
// would be 21,000 escaped bytes in one part if the plain run were taken
// against the raw budget alone.
func TestNextEscapeBudgetBindsPlainRuns(t *testing.T) {
	s := strings.Repeat("\x01", 1000) + strings.Repeat("a", 15000)
	const raw, esc = 16384, 20000
	if got, want := Next(s, raw, esc), nextSlow(s, raw, esc); got != want {
		t.Fatalf("Next(1,000 escapes + 15,000 plain, %d, %d) = %d; want %d (14,000 escaped bytes of budget left for the plain run)", raw, esc, got, want)
	}
	checkParts(t, s, raw, esc)
	// Every mix of an escaping prefix, a plain run and an escaping tail,
	// at budgets where the escaped one binds inside the plain run.
	for _, pre := range []string{"\x01", `"`, "é", "\xff", "😀"} {
		for k := 1; k <= 9; k++ {
			for _, plain := range []int{1, 7, 8, 9, 17, 64} {
				s := strings.Repeat(pre, k) + strings.Repeat("p", plain) + "\x02" + strings.Repeat("q", 3)
				for raw := 4; raw <= len(s)+1; raw++ {
					for esc := 6; esc < maxEscape*raw; esc++ {
						if got, want := Next(s, raw, esc), nextSlow(s, raw, esc); got != want {
							t.Fatalf("Next(%q, %d, %d) = %d; want %d", s, raw, esc, got, want)
						}
					}
				}
			}
		}
	}
}

// TestSplitSmallestBudgets: budgets of exactly one rune (4 raw bytes, 6
// escaped) are allowed and give one rune a part at worst; one less panics.
func TestSplitSmallestBudgets(t *testing.T) {
	checkParts(t, "😀\x01a\"é", utf8.UTFMax, 6)
	if got := Split("😀\x01", utf8.UTFMax, 6); len(got) != 2 {
		t.Fatalf("Split = %q; want one rune a part", got)
	}
	for _, b := range [][2]int{{utf8.UTFMax - 1, 6}, {utf8.UTFMax, 5}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Split(raw %d, esc %d) did not panic", b[0], b[1])
				}
			}()
			Split("x", b[0], b[1])
		}()
	}
}

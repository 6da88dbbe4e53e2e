package redact

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// bruteHits finds every trigger occurrence in s the slow way: each
// literal of each rule at each position, sorted.
func bruteHits(s string) []hit {
	var out []hit
	ls := strings.ToLower(s)
	for ri, r := range rules {
		for _, lit := range r.triggers {
			text := s
			if r.fold {
				text, lit = ls, strings.ToLower(lit)
			}
			for i := 0; i+len(lit) <= len(text); i++ {
				if text[i:i+len(lit)] == lit {
					out = append(out, hit{i, uint16(ri), uint16(len(lit))})
				}
			}
		}
	}
	return sortHits(out)
}

func sortHits(h []hit) []hit {
	slices.SortFunc(h, func(a, b hit) int {
		if a.pos != b.pos {
			return a.pos - b.pos
		}
		if a.rule != b.rule {
			return int(a.rule) - int(b.rule)
		}
		return int(a.n) - int(b.n)
	})
	return h
}

// triggerText returns a random text of filler and trigger literals, some
// of them case-changed or cut short.
func triggerText(rng *rand.Rand) string {
	fill := []string{" ", "x", "a", "=", "\n", "_", "-", ".", "é", "😀", "s", "k", "e", "y", "/", ":", "\"", "1", "A", "K"}
	var b strings.Builder
	for b.Len() < 1+rng.IntN(300) {
		if rng.IntN(3) > 0 {
			b.WriteString(fill[rng.IntN(len(fill))])
			continue
		}
		lit := triggers[rng.IntN(len(triggers))].lit
		switch rng.IntN(4) {
		case 0:
			lit = strings.ToUpper(lit)
		case 1:
			lit = lit[:rng.IntN(len(lit))]
		}
		b.WriteString(lit)
	}
	return b.String()
}

// TestScanFindsEveryTrigger: scan reports every trigger occurrence, once,
// and nothing else; scanNew over a text that grows by deltas reports each
// occurrence once, in the delta where it is complete.
func TestScanFindsEveryTrigger(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 400 {
		s := triggerText(rng)
		want := bruteHits(s)
		if got := sortHits(scan(s, 0, nil)); !slices.Equal(got, want) {
			t.Fatalf("iteration %d: scan(%q) = %v; want %v", iter, s, got, want)
		}
		// From an offset: the occurrences that start there or later, and
		// perhaps some that start a little before.
		from := rng.IntN(len(s) + 1)
		got := scan(s, from, nil)
		for _, h := range want {
			if h.pos >= from && !slices.Contains(got, h) {
				t.Fatalf("iteration %d: scan(%q, %d) misses %v", iter, s, from, h)
			}
		}
		for _, h := range got {
			if !slices.Contains(want, h) {
				t.Fatalf("iteration %d: scan(%q, %d) reports %v", iter, s, from, h)
			}
		}
		// In deltas, as a Stream scans.
		var acc []hit
		next, end := 0, 0
		for end < len(s) {
			old := end
			end = min(len(s), end+1+rng.IntN(40))
			acc, next = scanNew(s[:end], next, old, acc)
		}
		if got := sortHits(acc); !slices.Equal(got, want) {
			t.Fatalf("iteration %d: scanNew in deltas over %q = %v; want %v", iter, s, got, want)
		}
	}
}

// TestRarityAndAnchor: a bigram's rarity is its place among the common
// English letter pairs (case folded), past the end for any other pair; a
// trigger's anchor is the offset whose two bigrams are rarest, the
// commoner of the two counting first.
func TestRarityAndAnchor(t *testing.T) {
	rare := len(commonBigrams) / 3
	for _, tc := range []struct {
		pair string
		want int
	}{
		{"th", 0}, {"HE", 1}, {"an", 4}, {"ea", strings.Index(commonBigrams, "ea") / 3},
		{"za", strings.Index(commonBigrams, "za") / 3}, {"az", strings.Index(commonBigrams, "az") / 3},
		{"gm", strings.Index(commonBigrams, "gm") / 3}, {"zq", rare}, {"qz", rare}, {"a1", rare}, {"1a", rare}, {"-s", rare}, {"{a", rare}, {"a{", rare},
	} {
		if got := rarity(tc.pair[0], tc.pair[1]); got != tc.want {
			t.Errorf("rarity(%q) = %d; want %d", tc.pair, got, tc.want)
		}
	}
	for lit, want := range map[string]int{
		"sk-":   0,
		"then":  1, // he and en rather than th and he
		"thezq": 2, // ez and zq: neither is common
		"zqthe": 0,
		"zqzq":  0, // the first of equals
		"slack": 2, // ac and ck: both rarer than sl and la
		"uhiu":  0, // hi is the commoner in both: the rarer other wins
		"thehe": 1,
	} {
		if got := anchor(lit); got != want {
			t.Errorf("anchor(%q) = %d; want %d", lit, got, want)
		}
	}
}

// TestCaseTables: lower and capital fold ASCII letters, every other byte
// maps to itself.
func TestCaseTables(t *testing.T) {
	for i := range 256 {
		wantLower, wantCapital := byte(i), byte(i)
		if i < 0x80 {
			wantLower, wantCapital = strings.ToLower(string(rune(i)))[0], strings.ToUpper(string(rune(i)))[0]
		}
		if lower[i] != wantLower || capital[i] != wantCapital {
			t.Errorf("byte %#x: lower %#x, capital %#x; want %#x, %#x", i, lower[i], capital[i], wantLower, wantCapital)
		}
	}
}

// TestTriggerIndex: the triggers are grouped by the bigram that starts
// their anchor, each group under its own number, and group 0 (a bigram no
// anchor starts with) is empty.
func TestTriggerIndex(t *testing.T) {
	if groupStart[0] != groupStart[1] {
		t.Fatalf("group 0 holds %d triggers", groupStart[1]-groupStart[0])
	}
	g := 1
	for i, tr := range triggers {
		for i >= groupStart[g+1] {
			g++
		}
		if k := bigramList[bigram(tr.lit[tr.off], tr.lit[tr.off+1])]; int(k) != g {
			t.Fatalf("trigger %q in group %d; its anchor's bigram is group %d's", tr.lit, g, k)
		}
	}
	if len(triggers) < len(rules) {
		t.Fatalf("%d triggers for %d rules", len(triggers), len(rules))
	}
	// The trigram hash spreads the anchors: few share a bit, so a sampled
	// bigram of clean text rarely gets as far as the literals.
	anchors := map[string]bool{}
	for _, tr := range triggers {
		anchors[strings.ToLower(tr.lit[tr.off:tr.off+3])] = true
	}
	set := 0
	for _, w := range triBits {
		set += bits.OnesCount64(w)
	}
	if set < len(anchors)*9/10 || set > len(anchors) {
		t.Fatalf("%d bits set for %d anchor trigrams", set, len(anchors))
	}
}

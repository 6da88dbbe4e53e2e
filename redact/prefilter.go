package redact

import "strings"

// The prefilter finds trigger substrings in one pass over the text so that
// clean text, the common case on the delta hot path, never reaches a
// regexp. Triggers are indexed by their first two bytes, ASCII-lowercased:
// one bit test per byte, and only on a hit a short literal comparison.

// trigger is one literal of a rule.
type trigger struct {
	lit  string // lowercased when fold
	fold bool
	rule uint16
}

var (
	lower [256]byte
	// firstBits has bit k set when some trigger starts with bigram k, and
	// triBits bit trigram(t) for the first three bytes t of every trigger:
	// a position passes only when both hold, so common English bigrams and
	// trigrams made of two triggers' halves rarely reach the literals.
	firstBits [1 << 16 / 64]uint64
	triBits   [1 << 16 / 64]uint64
	// eitherBits holds the first two bigrams of every trigger: each puts one of its
	// two leading bigrams on any even position, so scan samples every
	// second position against it.
	eitherBits [1 << 16 / 64]uint64
	// bigramList[k] is the group (from 1) of the triggers that start with
	// bigram k, 0 for none; group g is triggers[groupStart[g]:groupStart[g+1]].
	bigramList [1 << 16]uint16
	triggers   []trigger
	groupStart []int
	// maxTrigger is the longest trigger: a trigger straddling two deltas
	// starts at most maxTrigger-1 bytes before the new one.
	maxTrigger int
)

// init builds the prefilter in two passes over the triggers and three
// allocations, so that the package costs next to nothing at start-up.
func init() {
	for i := range lower {
		lower[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			lower[i] = byte(i + 'a' - 'A')
		}
	}
	if len(rules) > 1<<16-1 {
		panic("redact: too many rules")
	}
	n, groups := 0, 0
	for _, r := range rules {
		for _, lit := range r.triggers {
			if len(lit) < 3 {
				panic("redact: trigger shorter than 3 bytes: " + lit)
			}
			k := bigram(lit[0], lit[1])
			if bigramList[k] == 0 {
				groups++
				bigramList[k] = uint16(groups)
			}
			n++
		}
	}
	groupStart = make([]int, groups+2)
	for _, r := range rules {
		for _, lit := range r.triggers {
			groupStart[bigramList[bigram(lit[0], lit[1])]]++
		}
	}
	for g := 1; g <= groups; g++ {
		groupStart[g] += groupStart[g-1]
	}
	groupStart[groups+1] = n
	// groupStart[g] is now the end of group g: fill each group from its
	// end, which leaves groupStart[g] at its start.
	triggers = make([]trigger, n)
	for ri := len(rules) - 1; ri >= 0; ri-- {
		r := rules[ri]
		for j := len(r.triggers) - 1; j >= 0; j-- {
			lit := r.triggers[j]
			t := trigger{lit: lit, fold: r.fold, rule: uint16(ri)}
			if r.fold && strings.ToLower(lit) != lit {
				t.lit = strings.ToLower(lit)
			}
			k := bigram(lit[0], lit[1])
			g := bigramList[k]
			groupStart[g]--
			triggers[groupStart[g]] = t
			firstBits[k>>6] |= 1 << (k & 63)
			k2 := bigram(lit[1], lit[2])
			k3 := trigram(lit[0], lit[1], lit[2])
			triBits[k3>>6] |= 1 << (k3 & 63)
			eitherBits[k>>6] |= 1 << (k & 63)
			eitherBits[k2>>6] |= 1 << (k2 & 63)
			maxTrigger = max(maxTrigger, len(lit))
		}
	}
}

func bigram(a, b byte) uint16 { return uint16(lower[a])<<8 | uint16(lower[b]) }

// trigram hashes three bytes, ASCII-lowercased, to 16 bits.
func trigram(a, b, c byte) uint16 {
	return uint16((uint32(lower[a])<<16 | uint32(lower[b])<<8 | uint32(lower[c])) * 2654435761 >> 16)
}

// hit is one trigger occurrence: rule rules[rule] may match at pos.
type hit struct {
	pos  int
	rule uint16
}

// scan appends to dst every trigger occurrence starting at or after from,
// in order of position. It does not allocate while dst has room.
func scan(s string, from int, dst []hit) []hit {
	// A trigger at p has its first bigram at p and its second at p+1, and
	// one of p, p+1 is sampled; each sampled hit q checks starts q-1, q.
	for q := from; q+1 < len(s); q += 2 {
		if k := bigram(s[q], s[q+1]); eitherBits[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for i := max(q-1, from); i <= q && i+2 < len(s); i++ {
			dst = scanAt(s, i, dst)
		}
	}
	return dst
}

// scanAt appends the triggers that start at i; i+2 < len(s).
func scanAt(s string, i int, dst []hit) []hit {
	k := bigram(s[i], s[i+1])
	if firstBits[k>>6]&(1<<(k&63)) == 0 {
		return dst
	}
	if k3 := trigram(s[i], s[i+1], s[i+2]); triBits[k3>>6]&(1<<(k3&63)) == 0 {
		return dst
	}
	g := bigramList[k]
	for _, t := range triggers[groupStart[g]:groupStart[g+1]] {
		if hasTrigger(s, i, t) {
			dst = append(dst, hit{i, t.rule})
		}
	}
	return dst
}

func hasTrigger(s string, i int, t trigger) bool {
	if len(s)-i < len(t.lit) {
		return false
	}
	if !t.fold {
		return s[i:i+len(t.lit)] == t.lit
	}
	for j := 2; j < len(t.lit); j++ {
		if lower[s[i+j]] != t.lit[j] {
			return false
		}
	}
	return true
}

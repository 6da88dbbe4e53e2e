package redact

// The prefilter finds trigger substrings in one pass over the text so that
// clean text, the common case on the delta hot path, never reaches a
// regexp. Triggers are indexed by their first two bytes, ASCII-lowercased:
// one bit test per byte, and only on a hit a short literal comparison.

// trigger is one literal of a rule.
type trigger struct {
	lit  string // lowercased when fold
	fold bool
	rule uint8
}

var (
	lower      [256]byte
	bigramBits [1 << 16 / 64]uint64 // bit k set: some trigger starts with bigram k
	bigramList [1 << 16]uint8       // k -> 1 + index into triggerLists
	// triggerLists[i] holds the triggers of one bigram.
	triggerLists [][]trigger
	// maxTrigger is the longest trigger: a trigger straddling two deltas
	// starts at most maxTrigger-1 bytes before the new one.
	maxTrigger int
)

func init() {
	for i := range lower {
		lower[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			lower[i] = byte(i + 'a' - 'A')
		}
	}
	if len(rules) > 64 {
		panic("redact: more than 64 rules")
	}
	for ri, r := range rules {
		for _, lit := range r.triggers {
			if len(lit) < 3 {
				panic("redact: trigger shorter than 3 bytes: " + lit)
			}
			t := trigger{lit: lit, fold: r.fold, rule: uint8(ri)}
			if r.fold {
				b := []byte(lit)
				for i := range b {
					b[i] = lower[b[i]]
				}
				t.lit = string(b)
			}
			k := bigram(lit[0], lit[1])
			bigramBits[k>>6] |= 1 << (k & 63)
			if bigramList[k] == 0 {
				triggerLists = append(triggerLists, nil)
				bigramList[k] = uint8(len(triggerLists))
			}
			i := bigramList[k] - 1
			triggerLists[i] = append(triggerLists[i], t)
			maxTrigger = max(maxTrigger, len(lit))
		}
	}
}

func bigram(a, b byte) uint16 { return uint16(lower[a])<<8 | uint16(lower[b]) }

// scan reports which rules have a trigger starting at or after from, and
// the start of the last trigger found (-1 if none). It does not allocate.
func scan[T string | []byte](s T, from int) (mask uint64, last int) {
	last = -1
	for i := from; i+1 < len(s); i++ {
		k := bigram(s[i], s[i+1])
		if bigramBits[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for _, t := range triggerLists[bigramList[k]-1] {
			if hasTrigger(s, i, t) {
				mask |= 1 << t.rule
				last = i
			}
		}
	}
	return mask, last
}

func hasTrigger[T string | []byte](s T, i int, t trigger) bool {
	if len(s)-i < len(t.lit) {
		return false
	}
	for j := 2; j < len(t.lit); j++ {
		c := s[i+j]
		if t.fold {
			c = lower[c]
		}
		if c != t.lit[j] {
			return false
		}
	}
	if !t.fold {
		// The bigram index is folded; case-sensitive triggers check it again.
		return s[i] == t.lit[0] && s[i+1] == t.lit[1]
	}
	return true
}

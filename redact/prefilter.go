package redact

import (
	"math/bits"
	"strings"
)

// The prefilter finds trigger substrings in one pass over the text so that
// clean text, the common case on the delta hot path, never reaches a
// regexp. Each trigger is indexed by an anchor: the two bigrams at an
// offset of it chosen to be rare in prose and code (ASCII-lowercased). The
// scan tests every second byte pair against a table of the anchors'
// bigrams, then the trigram bits of the two anchors the pair may belong
// to, and only then compares literals.

// trigger is one literal of a rule.
type trigger struct {
	lit  string // lowercased when fold
	fold bool
	off  uint8 // the anchor: lit[off:off+3] is indexed
	rule uint16
}

// commonBigrams are the most frequent letter pairs of English text, most
// frequent first: an anchor avoids them.
const commonBigrams = "th he in er an re on at en nd ti es or te of ed is it al ar st to nt ng se ha as ou io le ve co me de hi ri ro ic ne ea ra ce li ch ll be ma si om ur ca el ta la ns di fo ho pe ec pr no ct us ac ot il tr ly nc et ut ss so rs un lo wa ge ie wh ee wi em ad ol rt po we na ul ni ts mo ow pa im mi ai sh ir su id os iv ia am fi ci vi pl ig tu ev ld ry mp fe bl ab gh ty op wo sa ay ex ke fr oo av ag if ap gr od bo sp rd do uc bu ei ov by rm ep tt oc fa ef cu rn sc gi da yo cr cl du ga qu ue ff ba ey ls va um pp ua up lu go ht ru ug ds lt pi rc rr eg au ck ew mu br bi pt ak pu ui rg ib tl ny ki rk ys ob mm fu ph og ms ye ud mb ip ub oi rl gu dr hr cc tw ft wn nu af hu nn eo vo rv nf xp gn sm fl iz ok nl my gl aw ju oa eq sy sl ps jo lf nv je nk kn gs dy hy ze ks xt bs ik dd cy rp sk xi oe oy ws lv dl rf eu dg wr xa yi nm eb rb tm xc eh tc gy ja hn yp za gg ym sw bj lm cs ii ix xe oh lk dv lp ax ox uf dm iu sf bt ka yt ek pm ya gt wl rh yl hs ah yc yn rw hm lw hl ae zi az lc py aj iq nj bb nh uo kl lb tb gm"

// letterRank[a][b] is 1 + the place of the letter pair ab in
// commonBigrams, 0 for a pair not in it; built by init.
var letterRank [26][26]uint16

// rarity ranks a bigram: its place in commonBigrams, past the end for
// anything else (digits, punctuation, rare pairs).
func rarity(a, b byte) int {
	a, b = lower[a], lower[b]
	if a >= 'a' && a <= 'z' && b >= 'a' && b <= 'z' {
		if r := letterRank[a-'a'][b-'a']; r > 0 {
			return int(r) - 1
		}
	}
	return len(commonBigrams) / 3
}

// anchor picks the offset of lit whose two bigrams are rarest.
func anchor(lit string) int {
	best, score := 0, -1
	for j := 0; j+2 < len(lit) && j < 255; j++ {
		// Both bigrams go into the sampled bitmap: the commoner one counts.
		r1, r2 := rarity(lit[j], lit[j+1]), rarity(lit[j+1], lit[j+2])
		if sc := min(r1, r2)*1000 + r1 + r2; sc > score {
			best, score = j, sc
		}
	}
	return best
}

var (
	lower, capital [256]byte
	// triBits has bit trigram(t) set for every anchor's three bytes t: a
	// sampled bigram hit reaches the literals only where an anchor's
	// trigram may start, next to it.
	triBits [1 << 16 / 64]uint64
	// bigramList[k] is the group (from 1) of the triggers whose anchor
	// starts with bigram k, 0 for none; group g is
	// triggers[groupStart[g]:groupStart[g+1]].
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
		lower[i], capital[i] = byte(i), byte(i)
		if 'A' <= i && i <= 'Z' {
			lower[i] = byte(i + 'a' - 'A')
		}
		if 'a' <= i && i <= 'z' {
			capital[i] = byte(i - 'a' + 'A')
		}
	}
	if len(rules) > 1<<16-1 {
		panic("redact: too many rules")
	}
	for i := 0; i+1 < len(commonBigrams); i += 3 {
		letterRank[commonBigrams[i]-'a'][commonBigrams[i+1]-'a'] = uint16(i/3 + 1)
	}
	n, groups := 0, 0
	for _, r := range rules {
		n += len(r.triggers)
	}
	offs := make([]uint8, 0, n) // each trigger's anchor, in rule order
	for _, r := range rules {
		for _, lit := range r.triggers {
			if len(lit) < 3 {
				panic("redact: trigger shorter than 3 bytes: " + lit)
			}
			a := anchor(lit)
			offs = append(offs, uint8(a))
			k := bigram(lit[a], lit[a+1])
			if bigramList[k] == 0 {
				groups++
				bigramList[k] = uint16(groups)
			}
		}
	}
	groupStart = make([]int, groups+2)
	i := 0
	for _, r := range rules {
		for _, lit := range r.triggers {
			a := offs[i]
			i++
			groupStart[bigramList[bigram(lit[a], lit[a+1])]]++
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
			i--
			a := int(offs[i])
			t := trigger{lit: lit, fold: r.fold, off: uint8(a), rule: uint16(ri)}
			if r.fold && strings.ToLower(lit) != lit {
				t.lit = strings.ToLower(lit)
			}
			k := bigram(lit[a], lit[a+1])
			g := bigramList[k]
			groupStart[g]--
			triggers[groupStart[g]] = t
			k3 := trigram(lit[a], lit[a+1], lit[a+2])
			triBits[k3>>6] |= 1 << (k3 & 63)
			sampled(lit[a], lit[a+1], r.fold)
			sampled(lit[a+1], lit[a+2], r.fold)
			maxTrigger = max(maxTrigger, len(lit))
		}
	}
	buildHold()
}

func bigram(a, b byte) uint16 { return uint16(lower[a])<<8 | uint16(lower[b]) }

// trigram hashes three bytes to 16 bits, folding case by setting bit 5 of
// each (which folds a few punctuation pairs too: a collision only costs a
// literal comparison).
func trigram(a, b, c byte) uint16 { return tri3(uint32(a) | uint32(b)<<8 | uint32(c)<<16) }

// tri3 is trigram of the low three bytes of w, first byte lowest.
func tri3(w uint32) uint16 { return uint16((w | 0x202020) & 0xffffff * 2654435761 >> 16) }

// hit is one trigger occurrence: rule rules[rule] may match at pos.
type hit struct {
	pos  int
	rule uint16
	n    uint16 // the trigger's length
}

// rawSample holds the two bigrams of every anchor (one of them is on an
// even position, so scan samples every second position against it), as a
// byte table (1 for a bigram) keyed by the two raw bytes of a sample read
// as a little-endian uint16 (first byte low): every case of a letter for a
// trigger that folds case, the trigger's own bytes for one that does not.
// The sampling loop needs no lowercasing and no shifts; clean text touches
// a few kilobytes of it.
var rawSample [1 << 16]uint8

// sampled puts the bigram xy of an anchor into rawSample.
func sampled(x, y byte, fold bool) {
	if !fold {
		rawSample[uint16(x)|uint16(y)<<8] = 1
		return
	}
	for _, a := range [2]byte{lower[x], capital[lower[x]]} {
		for _, b := range [2]byte{lower[y], capital[lower[y]]} {
			rawSample[uint16(a)|uint16(b)<<8] = 1
		}
	}
}

// scan appends to dst every trigger occurrence in s whose anchor is at or
// after from. Hits come in the order of their anchors, so their positions
// may be out of order by less than maxTrigger. It does not allocate while
// dst has room.
func scan(s string, from int, dst []hit) []hit {
	dst, _ = scanNew(s, from, 0, dst)
	return dst
}

// scanNew is scan reporting only the triggers that end after oldEnd (the
// ones not yet seen when s was oldEnd bytes long). next is where the next
// scan of a longer s must start: the first anchor not examined, or one
// whose trigger ran past the end of s.
func scanNew(s string, from, oldEnd int, dst []hit) (_ []hit, next int) {
	// A trigger's anchor at a has its bigrams at a and a+1, and one of
	// them is sampled; each sampled hit q checks anchors at q-1 and q.
	// Four samples are tested at once: on clean text most eight-byte
	// blocks pass with one branch, and the rest branch once per hit.
	next = max(from, len(s)-2)
	q := from
	for ; ; q += 8 {
		if q = cleanBlocks(s, q); q+8 > len(s) {
			break
		}
		b := s[q : q+8]
		k0 := uint16(b[0]) | uint16(b[1])<<8
		k1 := uint16(b[2]) | uint16(b[3])<<8
		k2 := uint16(b[4]) | uint16(b[5])<<8
		k3 := uint16(b[6]) | uint16(b[7])<<8
		m := uint(rawSample[k0]) | uint(rawSample[k1])<<1 | uint(rawSample[k2])<<2 | uint(rawSample[k3])<<3
		for ; m != 0; m &= m - 1 {
			p := q + 2*bits.TrailingZeros(m)
			if p == from || p+3 > len(s) {
				dst = sampleHit(s, p, from, oldEnd, dst, &next)
				continue
			}
			// The anchors at p-1 and p, from the four bytes around p.
			b4 := s[p-1 : p+3]
			w := uint32(b4[0]) | uint32(b4[1])<<8 | uint32(b4[2])<<16 | uint32(b4[3])<<24
			if t := tri3(w); triBits[t>>6]&(1<<(t&63)) != 0 {
				dst = scanAt(s, p-1, oldEnd, dst, &next)
			}
			if t := tri3(w >> 8); triBits[t>>6]&(1<<(t&63)) != 0 {
				dst = scanAt(s, p, oldEnd, dst, &next)
			}
		}
	}
	for ; q+1 < len(s); q += 2 {
		if rawSample[uint16(s[q])|uint16(s[q+1])<<8] != 0 {
			dst = sampleHit(s, q, from, oldEnd, dst, &next)
		}
	}
	return dst, next
}

// cleanBlocks skips the eight-byte blocks from q on whose four samples all
// miss, and returns the start of the first block with a hit, or where
// fewer than eight bytes remain. It calls nothing, so its loop keeps
// everything in registers.
func cleanBlocks(s string, q int) int {
	for ; q+16 <= len(s); q += 16 {
		b := s[q : q+16]
		if rawSample[uint16(b[0])|uint16(b[1])<<8]|rawSample[uint16(b[2])|uint16(b[3])<<8]|
			rawSample[uint16(b[4])|uint16(b[5])<<8]|rawSample[uint16(b[6])|uint16(b[7])<<8] != 0 {
			return q
		}
		if rawSample[uint16(b[8])|uint16(b[9])<<8]|rawSample[uint16(b[10])|uint16(b[11])<<8]|
			rawSample[uint16(b[12])|uint16(b[13])<<8]|rawSample[uint16(b[14])|uint16(b[15])<<8] != 0 {
			return q + 8
		}
	}
	for ; q+8 <= len(s); q += 8 {
		b := s[q : q+8]
		if rawSample[uint16(b[0])|uint16(b[1])<<8]|rawSample[uint16(b[2])|uint16(b[3])<<8]|
			rawSample[uint16(b[4])|uint16(b[5])<<8]|rawSample[uint16(b[6])|uint16(b[7])<<8] != 0 {
			return q
		}
	}
	return q
}

// sampleHit checks the anchors at q-1 (not before from) and q, whose
// bigram at q is one of an anchor's; q+1 < len(s).
func sampleHit(s string, q, from, oldEnd int, dst []hit, next *int) []hit {
	if a := q - 1; a >= from && anchorAt(s, a) {
		dst = scanAt(s, a, oldEnd, dst, next)
	}
	if q+2 < len(s) && anchorAt(s, q) {
		dst = scanAt(s, q, oldEnd, dst, next)
	}
	return dst
}

// anchorAt reports whether a trigger's anchor may be at a: its trigram is
// (up to the hash) some anchor's; a+2 < len(s).
func anchorAt(s string, a int) bool {
	k3 := trigram(s[a], s[a+1], s[a+2])
	return triBits[k3>>6]&(1<<(k3&63)) != 0
}

// scanAt appends the triggers, ending after oldEnd, whose anchor is at a
// (anchorAt holds). A trigger that runs past the end of s moves *next back
// to a.
func scanAt(s string, a, oldEnd int, dst []hit, next *int) []hit {
	g := bigramList[bigram(s[a], s[a+1])]
	for _, t := range triggers[groupStart[g]:groupStart[g+1]] {
		i := a - int(t.off)
		switch end := i + len(t.lit); {
		case i < 0 || end <= oldEnd:
		case end > len(s):
			*next = min(*next, a)
		case hasTrigger(s, i, t):
			dst = append(dst, hit{i, t.rule, uint16(len(t.lit))})
		}
	}
	return dst
}

func hasTrigger(s string, i int, t trigger) bool {
	if !t.fold {
		return s[i:i+len(t.lit)] == t.lit
	}
	for j := 0; j < len(t.lit); j++ {
		if lower[s[i+j]] != t.lit[j] {
			return false
		}
	}
	return true
}

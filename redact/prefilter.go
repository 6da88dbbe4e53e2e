package redact

import "strings"

// The prefilter finds trigger substrings in one pass over the text so that
// clean text, the common case on the delta hot path, never reaches a
// regexp. Each trigger is indexed by an anchor: the two bigrams at an
// offset of it chosen to be rare in prose and code (ASCII-lowercased). The
// scan tests every second byte pair against a bitmap of the anchors, then
// a trigram bit, and only then compares literals.

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
	lower [256]byte
	// firstBits has bit k set when bigram k starts some trigger's anchor,
	// and triBits bit trigram(t) for the anchor's three bytes t: a position
	// passes only when both hold, so common English bigrams and trigrams
	// made of two triggers' halves rarely reach the literals.
	firstBits [1 << 16 / 64]uint64
	triBits   [1 << 16 / 64]uint64
	// eitherBits holds the two bigrams of every anchor: one of them is on
	// an even position, so scan samples every second position against it.
	eitherBits [1 << 16 / 64]uint64
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
		lower[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			lower[i] = byte(i + 'a' - 'A')
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
			firstBits[k>>6] |= 1 << (k & 63)
			k2 := bigram(lit[a+1], lit[a+2])
			k3 := trigram(lit[a], lit[a+1], lit[a+2])
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

// scan appends to dst every trigger occurrence starting at or after from.
// Hits come in the order of their anchors, so their positions may be out of
// order by less than maxTrigger. It does not allocate while dst has room.
func scan(s string, from int, dst []hit) []hit {
	// A trigger's anchor at a has its bigrams at a and a+1, and one of
	// them is sampled; each sampled hit q checks anchors at q-1 and q.
	for q := from; q+1 < len(s); q += 2 {
		if k := bigram(s[q], s[q+1]); eitherBits[k>>6]&(1<<(k&63)) == 0 {
			continue
		}
		for a := max(q-1, from); a <= q && a+2 < len(s); a++ {
			dst = scanAt(s, a, from, dst)
		}
	}
	return dst
}

// scanAt appends the triggers, starting at or after from, whose anchor is
// at a; a+2 < len(s).
func scanAt(s string, a, from int, dst []hit) []hit {
	k := bigram(s[a], s[a+1])
	if firstBits[k>>6]&(1<<(k&63)) == 0 {
		return dst
	}
	if k3 := trigram(s[a], s[a+1], s[a+2]); triBits[k3>>6]&(1<<(k3&63)) == 0 {
		return dst
	}
	g := bigramList[k]
	for _, t := range triggers[groupStart[g]:groupStart[g+1]] {
		if i := a - int(t.off); i >= from && hasTrigger(s, i, t) {
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
	for j := 0; j < len(t.lit); j++ {
		if lower[s[i+j]] != t.lit[j] {
			return false
		}
	}
	return true
}

// lastHit is 1 + the start of the last trigger among hits, 0 for none.
func lastHit(hits []hit) int {
	last := 0
	for _, h := range hits {
		last = max(last, h.pos+1)
	}
	return last
}

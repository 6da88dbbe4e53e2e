package redact

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// What a Stream holds back, and for how long. Text leaves a Stream as soon
// as no rule can take any of it into a secret, whatever bytes follow. Three
// things can still do so:
//
//   - an open candidate: a trigger in the window whose outcome more text
//     may change. It holds from the first byte its secret could start at
//     (spanFrom), which for most rules lies well after the trigger: the
//     value after an assignment operator, the token after "Bearer ". Text
//     before that goes out.
//   - a trigger not yet complete at the end of the window (prefixHold):
//     "gh" may become "ghp_...", and "~" part of "~/.ssh/id_rsa" (a
//     credential path takes its directory with it). Only the triggers of
//     rules that redact their trigger count; a keyword whose value alone
//     is redacted holds nothing. In practice this is the word at the end
//     of the window, up to swallowAt bytes: text up to the last space or
//     punctuation goes out.
//   - a trigger whose outcome is decided but read up to where the text
//     still held begins: that text may yet become a Marker, whose '[' or
//     ']' may change the outcome (settle.go). It holds from the first byte
//     its secret could start at, as an open candidate does
//     (Stream.settle).
//
// Idle releases the second kind: when the producer goes quiet, a trigger
// prefix is shown rather than held for as long as the pause lasts. An open
// candidate stays held until it is decided or the segment ends.

// The end of the window that a trigger not yet complete may take is the
// run of path bytes there (at most swallowAt of them): a credential path
// takes its directory with it, and every proper prefix of a trigger whose
// rule may redact the trigger itself (hold literals) is made of path bytes
// too, except a few URL prefixes ("https:/") found by holdURL.

var (
	// pathBits is pathByte as bits to AND eight bytes at a time.
	pathBits [256]uint8
	// holdURL lists the lowercased hold literals with a byte outside
	// pathByte before their last byte; holdURLMax is the longest.
	holdURL    []string
	holdURLMax int
	// holdURLFirst holds the first bytes of holdURL, both cases.
	holdURLFirst [256]bool
)

// buildHold indexes the hold literals; init calls it after the prefilter.
func buildHold() {
	for c, ok := range pathByte {
		if ok {
			pathBits[c] = 1
		}
	}
	for _, r := range rules {
		if r.assign || r.after {
			continue // the secret starts after the trigger's last byte
		}
		for _, t := range r.triggers {
			l := strings.ToLower(t)
			for i := 0; i < len(l)-1; i++ {
				if !pathByte[l[i]] {
					holdURL = append(holdURL, l)
					holdURLMax = max(holdURLMax, len(l))
					holdURLFirst[l[0]], holdURLFirst[capital[l[0]]] = true, true
					break
				}
			}
		}
	}
}

// prefixHold returns where the text at the end of w (not before from)
// that a trigger not yet complete may take starts; len(w) when there is
// none. It does not allocate.
func prefixHold(w string, from int) int {
	run := pathRun(w, from)
	for j := max(from, len(w)-holdURLMax+1); j < run; j++ {
		if !holdURLFirst[w[j]] {
			continue
		}
		for _, lit := range holdURL {
			if len(lit) > len(w)-j && hasPrefixFold(lit, w[j:]) {
				return j
			}
		}
	}
	return run
}

// pathRun returns the start of the run of path bytes that ends w, not
// before from and at most swallowAt bytes long.
func pathRun(w string, from int) int {
	lo := max(from, len(w)-swallowAt)
	i := len(w)
	for i-8 >= lo {
		b := w[i-8 : i]
		if pathBits[b[0]]&pathBits[b[1]]&pathBits[b[2]]&pathBits[b[3]]&pathBits[b[4]]&pathBits[b[5]]&pathBits[b[6]]&pathBits[b[7]] == 0 {
			break
		}
		i -= 8
	}
	for i > lo && pathByte[w[i-1]] {
		i--
	}
	return i
}

// hasPrefixFold reports whether lit (lowercase) starts with p, ignoring
// ASCII case.
func hasPrefixFold(lit, p string) bool {
	for i := 0; i < len(p); i++ {
		if lower[p[i]] != lit[i] {
			return false
		}
	}
	return true
}

// pathStart is where a match starting at i begins once it takes the
// directory before it (rule.path).
func pathStart(w string, i int) int {
	if i == 0 || w[i-1] != '/' {
		return i
	}
	for i > 0 && pathByte[w[i-1]] {
		i--
	}
	return i
}

// leadStep is one element of a pattern before its redacted group: the
// bytes its match may begin with (nil: any, or it may be empty) and its
// shortest match.
type leadStep struct {
	first    *[256]bool
	min, max int // max < 0: unbounded
}

// leadPlan is how far into a match its redacted text starts at the
// earliest: past each step in turn, then off more bytes. ok is false when
// the redacted text may start where the match does.
type leadPlan struct {
	steps []leadStep
	off   int
	ok    bool
}

// planLead works out the leadPlan of r from its parsed pattern.
func planLead(r *rule, re *syntax.Regexp) leadPlan {
	if r.back > 0 || r.path {
		return leadPlan{}
	}
	target := func(c int) bool { return c > r.whole && (r.group == 0 || c == r.group) }
	if !alwaysTaken(re, target) {
		return leadPlan{} // the whole match may be the secret
	}
	var p leadPlan
	p.steps, p.off, p.ok = leadOf(re, target, nil)
	return p
}

// leadOf walks the concatenation at the top of re up to the element that
// holds a target group.
func leadOf(re *syntax.Regexp, target func(int) bool, steps []leadStep) ([]leadStep, int, bool) {
	switch re.Op {
	case syntax.OpCapture:
		if !target(re.Cap) {
			return leadOf(re.Sub[0], target, steps)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if hasTarget(sub, target) {
				return leadOf(sub, target, steps)
			}
			st := leadStep{min: minWidth(sub), max: maxWidth(sub)}
			var set [256]bool
			if firstBytes(sub, &set) {
				st.first = &set
			}
			steps = append(steps, st)
		}
		return steps, 0, false
	}
	// re holds the secret. It starts at a byte it may begin with: the
	// bytes before that one (the space after "key =", the newline and
	// fence after "token:") are not part of the secret whatever follows.
	var set [256]bool
	if firstBytes(re, &set) {
		steps = append(steps, leadStep{first: &set})
	}
	off, ok := groupOffset(re, target)
	return steps, off, ok
}

// groupOffset is the fewest bytes before a target group in a match of re.
func groupOffset(re *syntax.Regexp, target func(int) bool) (int, bool) {
	switch re.Op {
	case syntax.OpCapture:
		if target(re.Cap) {
			return 0, true
		}
		return groupOffset(re.Sub[0], target)
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			if hasTarget(sub, target) {
				off, ok := groupOffset(sub, target)
				return n + off, ok
			}
			n += minWidth(sub)
		}
	case syntax.OpAlternate:
		best, found := 0, false
		for _, sub := range re.Sub {
			if off, ok := groupOffset(sub, target); ok && (!found || off < best) {
				best, found = off, true
			}
		}
		return best, found
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		return groupOffset(re.Sub[0], target)
	}
	return 0, false
}

func hasTarget(re *syntax.Regexp, target func(int) bool) bool {
	if re.Op == syntax.OpCapture && target(re.Cap) {
		return true
	}
	for _, sub := range re.Sub {
		if hasTarget(sub, target) {
			return true
		}
	}
	return false
}

// alwaysTaken reports whether every match of re has a target group that
// matched at least one byte, so the secret is never the whole match.
func alwaysTaken(re *syntax.Regexp, target func(int) bool) bool {
	switch re.Op {
	case syntax.OpCapture:
		if target(re.Cap) {
			return minWidth(re) > 0
		}
		return alwaysTaken(re.Sub[0], target)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if alwaysTaken(sub, target) {
				return true
			}
		}
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !alwaysTaken(sub, target) {
				return false
			}
		}
		return len(re.Sub) > 0
	case syntax.OpPlus:
		return alwaysTaken(re.Sub[0], target)
	case syntax.OpRepeat:
		return re.Min >= 1 && alwaysTaken(re.Sub[0], target)
	}
	return false
}

// spanFrom returns the first byte of w that the secret of rule r at its
// trigger pos could take, whatever text follows w; len(w) when none of w
// can be part of it.
func (r *rule) spanFrom(w string, pos int) int {
	switch {
	case r.path:
		return pathStart(w, pos)
	case r.back > 0:
		if r.after {
			return min(len(w), pos+3) // past the trigger, at least 3 bytes
		}
		return max(0, pos-r.back)
	}
	r.re() // the plan is made with the regexp
	p := &r.lead
	if !p.ok {
		return pos
	}
	// Each element starts in [b, hi] (hi < 0: no bound yet); one that must
	// start with a byte of first starts at the first such byte there.
	b, hi := pos, pos
	for _, st := range p.steps {
		if st.first != nil {
			end := len(w)
			if hi >= 0 {
				end = min(end, hi+1)
			}
			for b < end && !st.first[w[b]] {
				b++
			}
			if b == end {
				return len(w) // past the window, or no match at all
			}
		}
		if hi >= 0 && st.max >= 0 {
			hi += st.max
		} else {
			hi = -1
		}
		if b += st.min; b >= len(w) {
			return len(w)
		}
	}
	return min(len(w), b+p.off)
}

// maxWidth is the most bytes re matches, -1 when unbounded.
func maxWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
			if re.Flags&syntax.FoldCase != 0 {
				n += utf8.UTFMax // a folded letter may be a longer rune (K, ſ)
			}
		}
		return n
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxWidth(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		w := maxWidth(re.Sub[0])
		if re.Max < 0 || w < 0 {
			return -1
		}
		return re.Max * w
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			w := maxWidth(sub)
			if w < 0 {
				return -1
			}
			n += w
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			w := maxWidth(sub)
			if w < 0 {
				return -1
			}
			n = max(n, w)
		}
		return n
	}
	return 0 // empty-width assertions
}

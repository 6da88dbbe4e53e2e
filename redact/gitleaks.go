package redact

//go:generate go -C internal/gen run . -o ../../gitleaks_rules.go

import (
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// The gitleaks rules arrive as a generated table (gitleaks_rules.go, made
// by internal/gen from the gitleaks module pinned in internal/gen/go.mod:
// the generator is a module of its own, so none of gitleaks' dependencies
// enter the product's go.mod; see docs/redaction.md). This file turns the
// table into rules at package initialisation, which costs a few hundred
// small allocations and no regexp compilation: patterns and allowlists
// compile on first use.

// glRule is one generated gitleaks rule.
type glRule struct {
	id       string
	triggers []string // literals every match holds, at most back bytes from its start
	fold     bool
	left     bool // the match starts at a word boundary
	back     int
	// ctx is the byte set of the optional context run gitleaks puts before
	// a keyword ([\w.-]{0,50}?), at most ctxMax bytes: it is not part of
	// the pattern, but the "match" an allowlist reads starts there.
	ctx     string
	ctxMax  int
	pattern string
	limit   int // the longest match looked for (unbounded patterns: their shortest match + 64)
	group   int // 0: the first non-empty group after whole
	whole   int
	entropy float64 // the secret's Shannon entropy must exceed it
	// assign: an assignment operator follows the keyword, then a secret of
	// at least assignMin value bytes (rule.assign).
	assign    bool
	assignMin int
	allow     []glAllow
}

// glBranch is one alternative of an allowlist's regexes: a target holds a
// match of it only if it holds one of lits (lowercase; nil: no such
// literal is known).
type glBranch struct {
	lits    []string
	pattern string
}

type allowTarget uint8

const (
	allowSecret allowTarget = iota
	allowMatch
	allowLine
)

// glAllow is one gitleaks allowlist, as far as it applies to text without a
// file path or commit: regexes over a target, and stop words in the secret.
type glAllow struct {
	target    allowTarget
	and       bool // every kind of check present must hold, not any
	regexes   []string
	branches  []glBranch // the regexes as one alternation
	stopwords []string   // lowercase
}

// allowlist is a glAllow with its regexes compiled, and its stop words
// indexed by their first two bytes, on first use.
type allowlist struct {
	*glAllow
	res   func() []*regexp.Regexp // a.branches, compiled
	need  func() []branchNeed     // what each branch's matches need
	words func() map[uint16][]string
}

func newAllowlist(a *glAllow) allowlist {
	return allowlist{glAllow: a,
		res: sync.OnceValue(func() []*regexp.Regexp {
			out := make([]*regexp.Regexp, len(a.branches))
			for i, br := range a.branches {
				out[i] = regexp.MustCompile(br.pattern)
			}
			return out
		}),
		need: sync.OnceValue(func() []branchNeed {
			out := make([]branchNeed, len(a.branches))
			for i, br := range a.branches {
				if re, err := syntax.Parse(br.pattern, syntax.Perl); err == nil {
					out[i] = branchNeed{lits: required(re), first: anchoredFirst(re)}
				}
			}
			return out
		}),
		words: sync.OnceValue(func() map[uint16][]string {
			idx := map[uint16][]string{}
			for _, w := range a.stopwords {
				k := uint16(0xffff) // one-byte words: checked at every position
				if len(w) >= 2 {
					k = uint16(w[0])<<8 | uint16(w[1])
				}
				idx[k] = append(idx[k], w)
			}
			return idx
		}),
	}
}

// stopword reports whether secret holds one of the stop words, in one pass
// over it rather than one per word.
func (a allowlist) stopword(secret string) bool {
	if len(a.stopwords) == 0 {
		return false
	}
	idx := a.words()
	one := idx[0xffff]
	ls := strings.ToLower(secret)
	for i := range len(ls) {
		for _, w := range one {
			if ls[i] == w[0] {
				return true
			}
		}
		if i+1 < len(ls) {
			for _, w := range idx[uint16(ls[i])<<8|uint16(ls[i+1])] {
				if strings.HasPrefix(ls[i:], w) {
					return true
				}
			}
		}
	}
	return false
}

// allows reports whether the allowlist lets the finding through as not a
// secret. secret is its secret, match its whole match, line its line.
func (a allowlist) allows(secret, match, line string) bool {
	stop := a.stopword(secret)
	if stop && !a.and {
		return true // the cheaper check first: the outcome is the same
	}
	target := secret
	switch a.target {
	case allowMatch:
		target = match
	case allowLine:
		target = line
	}
	regexAllowed := a.regexMatches(target)
	if a.and {
		return (len(a.regexes) == 0 || regexAllowed) && (len(a.stopwords) == 0 || stop)
	}
	return regexAllowed || stop
}

// regexMatches reports whether one of the list's regexes matches target,
// running a branch only where its literals occur.
func (a allowlist) regexMatches(target string) bool {
	if len(a.branches) == 0 {
		return false
	}
	res, need := a.res(), a.need()
	lowered := strings.ToLower(target)
	for i, br := range a.branches {
		if br.lits != nil && !containsAny(lowered, br.lits) {
			continue
		}
		if !holdsAll(lowered, need[i].lits) || need[i].first != nil && (target == "" || !need[i].first[target[0]]) {
			continue
		}
		if res[i].MatchString(target) {
			return true
		}
	}
	return false
}

// branchNeed is what any text a branch matches holds: one literal of each
// set in lits, and, for a branch anchored at the start, a first byte in
// first (nil: unknown).
type branchNeed struct {
	lits  [][]string
	first *[256]bool
}

// anchoredFirst returns the bytes a match of re, anchored at the start of
// the text (\A), may begin with; nil when re is not so anchored or they
// are not known.
func anchoredFirst(re *syntax.Regexp) *[256]bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText {
		return nil
	}
	var set [256]bool
	if !firstBytes(re.Sub[1], &set) {
		return nil
	}
	return &set
}

// firstBytes adds to set the bytes a match of re may begin with, and
// reports false when re may match empty text or they are not known.
func firstBytes(re *syntax.Regexp, set *[256]bool) bool {
	switch re.Op {
	case syntax.OpLiteral:
		r := re.Rune[0]
		if r >= utf8.RuneSelf {
			return false
		}
		set[r] = true
		if re.Flags&syntax.FoldCase != 0 {
			// ASCII letters fold to ASCII letters, and k and s also to
			// U+212A and U+017F: any non-ASCII lead byte.
			set[lower[r]], set[upper(r)] = true, true
			for b := 0x80; b < 0x100; b++ {
				set[b] = true
			}
		}
		return true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1] && r < utf8.RuneSelf; r++ {
				set[r] = true
			}
			if re.Rune[i+1] >= utf8.RuneSelf {
				for b := 0x80; b < 0x100; b++ {
					set[b] = true
				}
			}
		}
		return len(re.Rune) > 0
	case syntax.OpCapture, syntax.OpPlus:
		return firstBytes(re.Sub[0], set)
	case syntax.OpRepeat:
		return re.Min >= 1 && firstBytes(re.Sub[0], set)
	case syntax.OpConcat:
		return len(re.Sub) > 0 && minWidth(re.Sub[0]) > 0 && firstBytes(re.Sub[0], set)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !firstBytes(sub, set) {
				return false
			}
		}
		return true
	}
	return false
}

// containsAny reports whether s holds one of lits.
func containsAny(s string, lits []string) bool {
	for _, l := range lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

// holdsAll reports whether s holds one literal of each set.
func holdsAll(s string, sets [][]string) bool {
	for _, set := range sets {
		if !containsAny(s, set) {
			return false
		}
	}
	return true
}

// required returns sets of lowercase literals such that any text re
// matches holds one literal of each set (ASCII case folded: a lowercased
// text is searched). Nil when nothing is known. A branch runs only where
// its sets all hold: "api" and one of "id", "name", "version" for
// API[-._]?(?:ID|NAME|VERSION), not wherever "api" occurs.
func required(re *syntax.Regexp) [][]string {
	switch re.Op {
	case syntax.OpLiteral:
		b := make([]byte, 0, len(re.Rune))
		for _, r := range re.Rune {
			if r >= utf8.RuneSelf {
				return nil
			}
			b = append(b, lower[r])
		}
		if len(b) < 2 {
			return nil
		}
		return [][]string{{string(b)}}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var out [][]string
		for _, sub := range re.Sub {
			out = append(out, required(sub)...)
		}
		return out
	case syntax.OpAlternate:
		// One alternative matches: the union of one set of each.
		var set []string
		for _, sub := range re.Sub {
			r := required(sub)
			if len(r) == 0 {
				return nil
			}
			best := r[0]
			for _, x := range r[1:] {
				if shortest(x) > shortest(best) {
					best = x
				}
			}
			set = append(set, best...)
		}
		return [][]string{set}
	}
	return nil
}

func shortest(set []string) int {
	n := math.MaxInt
	for _, l := range set {
		n = min(n, len(l))
	}
	return n
}

var globalAllow = sync.OnceValue(func() []allowlist {
	out := make([]allowlist, len(gitleaksGlobalAllow))
	for i := range gitleaksGlobalAllow {
		out[i] = newAllowlist(&gitleaksGlobalAllow[i])
	}
	return out
})

// globallyAllowed reports a value that gitleaks' global allowlist lets
// through for every rule: true/false/null, a run of one letter, $VAR,
// ${VAR}, {{ template }}, %VAR%, format verbs, system paths.
func globallyAllowed(secret string) bool {
	for _, a := range globalAllow() {
		if a.allows(secret, secret, secret) {
			return true
		}
	}
	return false
}

// gitleaksTable turns the generated table into rules: one allocation for
// all of them; patterns and allowlists compile on first use.
func gitleaksTable() []*rule {
	slab := make([]rule, len(gitleaksRules))
	out := make([]*rule, len(gitleaksRules))
	for i := range gitleaksRules {
		g := &gitleaksRules[i]
		r := &slab[i]
		r.name, r.triggers, r.fold, r.pattern = g.id, g.triggers, g.fold, g.pattern
		r.back, r.whole, r.group, r.limit, r.assign, r.assignMin = g.back, g.whole, g.group, g.limit, g.assign, g.assignMin
		r.tail, r.extend, r.gl, r.after = extendClass, true, g, g.assign
		if g.left {
			r.left = boundary
		}
		out[i] = r
	}
	return out
}

// ruleAllow holds each gitleaks rule's allowlists, built on first use, the
// lists that read the secret only first: they are the cheap ones, and any
// list that allows a finding decides it.
var ruleAllow = sync.OnceValue(func() map[*glRule][]allowlist {
	m := make(map[*glRule][]allowlist)
	for i := range gitleaksRules {
		g := &gitleaksRules[i]
		if len(g.allow) == 0 {
			continue
		}
		allow := make([]allowlist, len(g.allow))
		for j := range g.allow {
			allow[j] = newAllowlist(&g.allow[j])
		}
		slices.SortStableFunc(allow, func(a, b allowlist) int { return int(a.target) - int(b.target) })
		m[g] = allow
	}
	return m
})

// accepts applies the rule's entropy threshold, gitleaks' global allowlist
// and the rule's allowlists to the secret sp of the match whole in s.
func (g *glRule) accepts(s string, whole, sp span) bool {
	secret := s[sp.start:sp.end]
	if g.entropy > 0 && entropy(secret) <= g.entropy {
		return false
	}
	if globallyAllowed(secret) || ordinaryBase64(secret) || strings.Contains(secret, Marker) {
		return false
	}
	if len(g.allow) == 0 {
		return true
	}
	// gitleaks' match starts where its context run before the keyword does.
	start := whole.start
	for n := 0; n < g.ctxMax && start > 0 && strings.IndexByte(g.ctx, s[start-1]) >= 0; n++ {
		start--
	}
	match, line := s[start:whole.end], lineOf(s, whole)
	for _, a := range ruleAllow()[g] {
		if a.allows(secret, match, line) {
			return false
		}
	}
	return true
}

// lineOf returns the line of s that holds sp, at most 1024 bytes either side.
func lineOf(s string, sp span) string {
	start, end := lineBounds(s, sp)
	return s[start:end]
}

// lineBounds returns where lineOf's line starts and ends in s.
func lineBounds(s string, sp span) (start, end int) {
	start = max(0, sp.start-1024)
	if i := strings.LastIndexByte(s[start:sp.start], '\n'); i >= 0 {
		start += i + 1
	}
	end = min(len(s), sp.end+1024)
	if i := strings.IndexByte(s[sp.end:end], '\n'); i >= 0 {
		end = sp.end + i
	}
	return start, end
}

// entropy is the Shannon entropy of s in bits per rune, as gitleaks
// computes it.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var ascii [128]int
	var other map[rune]int
	for _, r := range s {
		if r < utf8.RuneSelf {
			ascii[r]++
			continue
		}
		if other == nil {
			other = map[rune]int{}
		}
		other[r]++
	}
	inv := 1 / float64(len(s))
	e := 0.0
	add := func(n int) {
		if n > 0 {
			f := float64(n) * inv
			e -= f * math.Log2(f)
		}
	}
	for _, n := range ascii {
		add(n)
	}
	for _, n := range other {
		add(n)
	}
	return e
}

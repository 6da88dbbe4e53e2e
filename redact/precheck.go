package redact

import (
	"math"
	"regexp/syntax"
	"strings"
	"sync"
)

// Cheap checks that run before a rule's regexp. Code is full of the words
// the keyword rules trigger on (token, secret, key, password), usually in
// shapes no secret takes: a declaration, a reference such as
// cfg.Credential.AccessToken, a placeholder. Each check is a necessary
// condition for the rule to report a secret at the trigger, so skipping
// the regexp when it fails changes no outcome; each reports true when the
// text ends before it is decided (a Stream may see more).

// skipPrechecks turns the checks off (tests: each must be a necessary
// condition of what the regexp and the rule's checks report).
var skipPrechecks bool

// assignKeywords are the keywords of the assignment rule's pattern, as
// they may occur at its triggers.
var assignKeywords = []string{"password", "passwd", "passphrase", "secret", "token",
	"apikey", "api_key", "api-key", "accesskey", "access_key", "access-key",
	"privatekey", "private_key", "private-key", "credentials", "credential"}

// assignPre reports whether the assignment rule may find a secret at pos:
// it follows the pattern (keyword, an optional key or value suffix, an
// optional quote, space, the operator, space) by hand along every path the
// pattern may take, and applies secretValue to each value the pattern
// could capture. Only when one passes (or s ends first) does the regexp
// run.
func assignPre(s string, pos int) bool {
	p := &assignParse{s: s}
	for _, kw := range assignKeywords {
		if k := p.word(pos, kw); k >= 0 && p.afterKeyword(k) {
			return true
		}
	}
	return p.eof
}

// assignParse is one run of assignPre; eof records that some path needed
// a byte past the end of s.
type assignParse struct {
	s   string
	eof bool
}

// word returns the end of w (lowercase) matched ASCII case-insensitively at
// i, or -1.
func (p *assignParse) word(i int, w string) int {
	for j := 0; j < len(w); j++ {
		if i+j >= len(p.s) {
			p.eof = true
			return -1
		}
		c := p.s[i+j]
		if c >= 0x80 {
			// (?i) also folds U+017F to s and U+212A to k.
			p.eof = true
			return -1
		}
		if lower[c] != w[j] {
			return -1
		}
	}
	return i + len(w)
}

func (p *assignParse) afterKeyword(k int) bool {
	if p.afterSuffix(k) {
		return true
	}
	// (?:[_.-]?(?:key|value))?
	for _, sep := range [...]bool{false, true} {
		i := k
		if sep {
			if i >= len(p.s) {
				p.eof = true
				return false
			}
			if c := p.s[i]; c != '_' && c != '.' && c != '-' {
				continue
			}
			i++
		}
		for _, w := range [...]string{"key", "value"} {
			if e := p.word(i, w); e >= 0 && p.afterSuffix(e) {
				return true
			}
		}
	}
	return false
}

func (p *assignParse) afterSuffix(i int) bool {
	// ["']?[ \t]*
	if i < len(p.s) && (p.s[i] == '"' || p.s[i] == '\'') && p.afterQuote(i+1) {
		return true
	}
	return p.afterQuote(i)
}

func (p *assignParse) afterQuote(i int) bool {
	i = p.space(i)
	if i >= len(p.s) {
		p.eof = true
		return false
	}
	// (?::=|=>|[:=])
	var next byte
	switch p.s[i] {
	case ':':
		next = '='
	case '=':
		next = '>'
	default:
		return false
	}
	if i+1 >= len(p.s) {
		p.eof = true
		return false
	}
	return p.s[i+1] == next && p.value(i+2) || p.value(i+1)
}

func (p *assignParse) space(i int) int {
	for i < len(p.s) && (p.s[i] == ' ' || p.s[i] == '\t') {
		i++
	}
	return i
}

// value applies secretValue to the value the pattern captures at i, after
// space: "...", '...' or a bare run.
func (p *assignParse) value(i int) bool {
	i = p.space(i)
	if i >= len(p.s) {
		p.eof = true
		return false
	}
	if q := p.s[i]; q == '"' || q == '\'' {
		for j := i + 1; j < len(p.s); j++ {
			switch p.s[j] {
			case q:
				return j > i+1 && secretValue(p.s[i+1:j])
			case '\n':
				return false
			}
		}
		p.eof = true
		return false
	}
	j := i
	for j < len(p.s) && bareValue[p.s[j]] {
		j++
	}
	if j == len(p.s) {
		p.eof = true
		return false
	}
	return j > i && secretValue(p.s[i:j])
}

// runByte is a byte that may belong to a gitleaks keyword rule's secret
// (the rules checkHold applies to; its extension included); a byte of a
// non-ASCII rune is decided on its own.
var runByte = class("A-Za-z0-9_.=+/~-")

// letterish is what gitleaks' generic rule allowlists as a whole secret:
// ^[a-zA-Z_.-]+$.
var letterish = class("A-Za-z_.-")

// semiLead is what gitleaks' generated keyword rules put between the
// assignment operator and the secret's group: at most 5 bytes of quotes,
// space and =. mayHold applies to the rules that hold it once.
const semiLead = "(?:[=>]|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\t\\n\\f\\r \"'=`]{0,5}("

// holdCheck is what mayHold knows of one gitleaks rule.
type holdCheck struct {
	ok       bool // every capture group holds runByte bytes only (or non-ASCII)
	distinct int  // the fewest distinct bytes a secret above the entropy threshold has
	other    bool // a secret of letterish bytes only is allowlisted
}

var holdChecks sync.Map // *glRule -> holdCheck

// hold returns the rule's holdCheck, worked out on first use.
func (g *glRule) hold() holdCheck {
	if h, ok := holdChecks.Load(g); ok {
		return h.(holdCheck)
	}
	h := holdCheck{ok: strings.Count(g.pattern, semiLead) == 1 && capturesInRun(g.pattern)}
	if g.entropy > 0 {
		// Shannon entropy is at most log2 of the number of distinct runes.
		h.distinct = int(math.Floor(math.Exp2(g.entropy))) + 1
	}
	for _, a := range g.allow {
		if a.target != allowSecret || a.and {
			continue
		}
		for _, re := range a.regexes {
			if re == `^[a-zA-Z_.-]+$` {
				h.other = true
			}
		}
	}
	holdChecks.Store(g, h)
	return h
}

// capturesInRun reports whether the pattern has a capture group that always
// takes part with at least one byte, and every byte any capture group may
// match is a runByte or part of a non-ASCII rune.
func capturesInRun(pattern string) bool {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	ok := true
	var walk func(re *syntax.Regexp, inCapture bool)
	walk = func(re *syntax.Regexp, inCapture bool) {
		if re.Op == syntax.OpCapture {
			inCapture = true
		}
		if inCapture {
			switch re.Op {
			case syntax.OpLiteral:
				for _, r := range re.Rune {
					ok = ok && (r >= 0x80 || runByte[r] && (re.Flags&syntax.FoldCase == 0 || runByte[lower[r]] && runByte[upper(r)]))
				}
			case syntax.OpCharClass:
				for i := 0; i+1 < len(re.Rune); i += 2 {
					for r := re.Rune[i]; r <= min(re.Rune[i+1], 0x7f); r++ {
						ok = ok && runByte[r]
					}
				}
			case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
				ok = false
			}
		}
		for _, sub := range re.Sub {
			walk(sub, inCapture)
		}
	}
	walk(re, false)
	return ok && mandatoryCapture(re)
}

func upper(r rune) rune {
	if 'a' <= r && r <= 'z' {
		return r - 'a' + 'A'
	}
	return r
}

// mandatoryCapture reports whether re is a concatenation (perhaps inside
// groups without captures) holding a capture group of positive minimum
// width: some group always takes part, so the secret is a group's text,
// never the whole match.
func mandatoryCapture(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpCapture:
		return minWidth(re) > 0
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if mandatoryCapture(sub) {
				return true
			}
		}
	}
	return false
}

// minWidth is the fewest bytes re matches (a lower bound).
func minWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minWidth(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minWidth(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minWidth(sub)
		}
		return n
	case syntax.OpAlternate:
		n := math.MaxInt
		for _, sub := range re.Sub {
			n = min(n, minWidth(sub))
		}
		return n
	}
	return 0
}

// mayHold reports whether a gitleaks keyword rule may find a secret its
// checks accept after the assignment operator that follows pos: the secret
// starts within 9 bytes past the operator (its own length and the quotes,
// space and = before the value) and is part of a run of runByte bytes, so
// some such run starting there must have as many distinct bytes as the
// entropy threshold needs and, where the rule allowlists secrets of
// letters and _.- only, another byte.
func (g *glRule) mayHold(s string, pos int) bool {
	h := g.hold()
	if !h.ok || h.distinct <= 1 && !h.other {
		return true
	}
	o := pos
	for o < len(s) && o < pos+assignSkip && nameByte[s[o]] {
		o++
	}
	if o >= len(s) {
		return true
	}
	for i := o + 1; i <= o+10; {
		if i >= len(s) {
			return true
		}
		if !runByte[s[i]] {
			if s[i] >= 0x80 {
				return true
			}
			i++
			continue
		}
		var seen [2]uint64
		distinct, other := 0, false
		for ; i < len(s) && runByte[s[i]]; i++ {
			c := s[i]
			if seen[c>>6]&(1<<(c&63)) == 0 {
				seen[c>>6] |= 1 << (c & 63)
				distinct++
			}
			other = other || !letterish[c]
			if distinct >= h.distinct && (other || !h.other) {
				return true
			}
		}
		if i == len(s) || s[i] >= 0x80 {
			return true
		}
	}
	return false
}

package redact

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Marker replaces every redacted secret.
const Marker = "[REDACTED]"

// String returns s with every secret replaced by Marker. It returns s
// itself, without allocating, when s holds nothing to redact. It is safe for
// concurrent use.
func String(s string) string {
	var hits [8]hit
	h := scan(s, 0, hits[:0])
	if len(h) == 0 {
		return s
	}
	var buf [8]span
	spans := find(s, h, buf[:0])
	if len(spans) == 0 {
		return s
	}
	return render(s, 0, len(s), spans)
}

// Contains reports whether s holds anything String would redact.
func Contains(s string) bool {
	var hits [8]hit
	h := scan(s, 0, hits[:0])
	if len(h) == 0 {
		return false
	}
	var buf [8]span
	return len(find(s, h, buf[:0])) > 0
}

// Summary redacts s, then truncates the result to at most max bytes on a
// UTF-8 rune boundary. Activity, approval and diagnostic summaries use it
// with protocol.SummaryBytes. Spec: "summary at most 1024 UTF-8 bytes after
// redaction". Redacting first means truncation can never cut a secret into
// a shape the rules no longer recognise.
func Summary(s string, max int) string {
	s = String(s)
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// span is the byte range [start, end) of one secret in a text.
type span struct {
	start, end int
	r          *rule
	group      int // the submatch redacted; 0 is the whole match
}

// swallowable reports whether the secret could continue past end if more text
// followed, with every further byte of the run belonging to it.
func (sp span) swallowable() bool {
	return sp.r.pem || (sp.r.tail != nil && (sp.r.extend || sp.group == sp.r.tailGroup))
}

// match tries rule r at trigger position pos of s. It returns the whole
// match and the span to redact; ok is false when the rule does not match
// there. valid reports whether the rule's checks accept the span.
func match(s string, pos int, r *rule) (whole, sp span, ok, valid bool) {
	start := pos
	if r.back > 0 {
		// The trigger sits inside the match: the pattern skips lazily over
		// at most back bytes before it (see rule.back).
		start = max(0, pos-r.back)
	} else if r.left != nil && !r.left(before(s, pos)) {
		return
	}
	if r.assign && !assignAhead(s, pos) {
		return
	}
	end := len(s)
	if r.limit > 0 && start+r.limit+1 < end {
		// One byte past the longest match keeps a trailing \b or $ honest.
		end = start + r.limit + 1
	}
	m := r.re().FindStringSubmatchIndex(s[start:end])
	if m == nil {
		return
	}
	w := r.whole
	whole = span{start: start + m[2*w], end: start + m[2*w+1], r: r}
	if r.back > 0 && r.left != nil && !r.left(before(s, whole.start)) {
		return
	}
	if r.path && whole.start > 0 && s[whole.start-1] == '/' {
		for whole.start > 0 && pathByte[s[whole.start-1]] {
			whole.start--
		}
	}
	sp = whole
	if g := r.group; g > 0 {
		if 2*g < len(m) && m[2*g] >= 0 {
			sp.start, sp.end, sp.group = start+m[2*g], start+m[2*g+1], g
		}
	} else {
		// The first group that took part, and is not empty, after the whole.
		for g := w + 1; 2*g < len(m); g++ {
			if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
				sp.start, sp.end, sp.group = start+m[2*g], start+m[2*g+1], g
				break
			}
		}
	}
	if r.extend && sp.end > sp.start && r.tail[s[sp.end-1]] {
		// A fixed-length pattern may match the start of a longer token:
		// the rest of the token goes too, never left on show.
		for n := 0; n < extendMax && sp.end < len(s) && r.tail[s[sp.end]]; n++ {
			sp.end++
		}
		whole.end = max(whole.end, sp.end)
	}
	valid = sp.start < sp.end && (r.valid == nil || r.valid(s[sp.start:sp.end])) &&
		(r.check == nil || r.check(s, whole, sp)) && (r.gl == nil || r.gl.accepts(s, whole, sp))
	return whole, sp, true, valid
}

// extendMax bounds how far a secret is extended over the rest of its token.
const extendMax = 256

// assignSkip bounds the name, quotes and space between a trigger and its
// assignment operator: a gitleaks keyword rule allows 20 bytes of name past
// a keyword (itself up to 30) and 3 of quotes or space.
const assignSkip = 64

var (
	nameByte = class("A-Za-z0-9_.\t\n\v\f\r '\"-")
	assignOp = class("=:>|?,")
)

// assignAhead reports whether an assignment operator follows pos past at
// most assignSkip bytes of name, quotes and space.
func assignAhead(s string, pos int) bool {
	end := min(len(s), pos+assignSkip)
	for i := pos; i < end; i++ {
		if c := s[i]; !nameByte[c] {
			return assignOp[c]
		}
	}
	return end == len(s) // the operator may be in the next delta
}

// before is the byte before pos, -1 at the start of s.
func before(s string, pos int) int {
	if pos == 0 {
		return -1
	}
	return int(s[pos-1])
}

// find returns the merged secret spans of s at the trigger hits, sorted by
// start. Overlapping or touching spans merge; a merged span keeps the rule
// of the part that ends last.
func find(s string, hits []hit, dst []span) []span {
	for _, h := range hits {
		if _, sp, ok, valid := match(s, h.pos, rules[h.rule]); ok && valid {
			dst = append(dst, sp)
		}
	}
	if len(dst) < 2 {
		return dst
	}
	slices.SortFunc(dst, func(a, b span) int { return a.start - b.start })
	out := dst[:1]
	for _, sp := range dst[1:] {
		last := &out[len(out)-1]
		if sp.start > last.end {
			out = append(out, sp)
			continue
		}
		if sp.end >= last.end {
			last.end, last.r, last.group = sp.end, sp.r, sp.group
		}
	}
	return out
}

// render returns s[from:to] with every span, clipped to that range,
// replaced by Marker. Spans are sorted and disjoint.
func render(s string, from, to int, spans []span) string {
	var b strings.Builder
	b.Grow(to - from + len(spans)*len(Marker))
	pos := from
	for _, sp := range spans {
		start, end := max(sp.start, from), min(sp.end, to)
		if start >= end {
			continue
		}
		b.WriteString(s[pos:start])
		b.WriteString(Marker)
		pos = end
	}
	b.WriteString(s[pos:to])
	return b.String()
}

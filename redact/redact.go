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
	return sp.r.pem || (sp.r.tail != nil && sp.group == sp.r.tailGroup)
}

// match tries rule r at trigger position pos of s. It returns the whole
// match and the span to redact; ok is false when the rule does not match
// there. valid reports whether the rule's validator accepts the span.
func match(s string, pos int, r *rule) (whole, sp span, ok, valid bool) {
	if r.left != nil {
		b := -1
		if pos > 0 {
			b = int(s[pos-1])
		}
		if !r.left(b) {
			return
		}
	}
	m := r.re().FindStringSubmatchIndex(s[pos:])
	if m == nil {
		return
	}
	whole = span{start: pos + m[0], end: pos + m[1], r: r}
	if r.path && pos > 0 && s[pos-1] == '/' {
		for whole.start > 0 && pathByte[s[whole.start-1]] {
			whole.start--
		}
	}
	sp = whole
	for g := 1; 2*g < len(m); g++ {
		if m[2*g] >= 0 {
			sp.start, sp.end, sp.group = pos+m[2*g], pos+m[2*g+1], g
			break
		}
	}
	valid = sp.start < sp.end && (r.valid == nil || r.valid(s[sp.start:sp.end]))
	return whole, sp, true, valid
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

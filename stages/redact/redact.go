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
	mask, _ := scan(s, 0)
	if mask == 0 {
		return s
	}
	var buf [8]span
	spans := find(s, mask, buf[:0])
	if len(spans) == 0 {
		return s
	}
	return render(s, 0, len(s), spans)
}

// Contains reports whether s holds anything String would redact.
func Contains(s string) bool {
	mask, _ := scan(s, 0)
	if mask == 0 {
		return false
	}
	var buf [8]span
	return len(find(s, mask, buf[:0])) > 0
}

// Summary redacts s, then truncates the result to at most max bytes on a
// UTF-8 rune boundary. Activity, approval and diagnostic summaries use it
// with wire.SummaryBytes. Spec: "summary at most 1024 UTF-8 bytes after
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

// find returns the merged secret spans of s for the rules in mask, sorted
// by start. Overlapping or touching spans merge; a merged span keeps the rule
// of the part that ends last.
func find(s string, mask uint64, dst []span) []span {
	for ri, r := range rules {
		if mask&(1<<ri) == 0 {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
			sp := span{start: m[0], end: m[1], r: r}
			for g := 1; 2*g < len(m); g++ {
				if m[2*g] >= 0 {
					sp.start, sp.end, sp.group = m[2*g], m[2*g+1], g
					break
				}
			}
			if sp.start == sp.end || (r.valid != nil && !r.valid(s[sp.start:sp.end])) {
				continue
			}
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

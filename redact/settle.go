package redact

import (
	"slices"
	"sort"
	"unsafe"
)

// Redaction is a fixed point: String(String(s)) == String(s). A rule's
// outcome at a trigger may depend on text that another secret covers: a
// value that ran on into the secret's bytes, and so matched no pattern,
// ends where the secret does once the secret is Marker, whose '[' closes a
// token ("SECRET0,012789ABKEY=01289AB+C7XY": the generic rule matches
// "012789ABKEY=" only when the key=value after it is redacted); a word
// boundary may appear after its ']'; an allowlisted word on the line may
// be gone. So, once the secrets of a text are found, the text is rendered
// with them and its triggers are matched again against the rendered text,
// and the secrets found there are redacted too, until none is found: what
// String returns holds no secret of its own. A secret found again never
// lies inside a Marker (matchAt), so each round redacts more of the text
// and the rounds end. Stream does the same over its window (Stream.settle).

// maxRounds bounds the rounds: a text whose secrets have not settled by
// then (a chain of values each of which only the redaction of the next
// one ends, built on purpose) is redacted whole.
const maxRounds = 32

// unsettled is the rule of the span that covers such a text.
var unsettled = &rule{name: "unsettled"}

// mark is one Marker of a view: y[at:at+len(Marker)] stands for src.
type mark struct {
	at  int
	src span
}

// view is s[:to] with spans rendered as Marker (y), and where its markers
// lie, to map positions between s and y.
type view struct {
	y     string
	marks []mark
}

// newView renders s[:to] with spans (sorted, disjoint; clipped to s[:to]). It
// does not allocate when no span starts before to.
func newView(s string, spans []span, to int) view {
	if len(spans) == 0 || spans[0].start >= to {
		return view{y: s[:to]}
	}
	b := make([]byte, 0, to+len(spans)*len(Marker))
	var marks []mark
	pos := 0
	for _, sp := range spans {
		if sp.start >= to {
			break
		}
		sp.start, sp.end = max(sp.start, pos), min(sp.end, to)
		b = append(b, s[pos:sp.start]...)
		marks = append(marks, mark{at: len(b), src: sp})
		b = append(b, Marker...)
		pos = sp.end
	}
	b = append(b, s[pos:to]...)
	return view{y: unsafe.String(unsafe.SliceData(b), len(b)), marks: marks}
}

// covers reports whether a rendered span overlaps s[p:q].
func (v *view) covers(p, q int) bool {
	i := sort.Search(len(v.marks), func(i int) bool { return v.marks[i].src.end > p })
	return i < len(v.marks) && v.marks[i].src.start < q
}

// toY maps position p of s, outside the rendered spans, to y.
func (v *view) toY(p int) int {
	i := sort.Search(len(v.marks), func(i int) bool { return v.marks[i].src.start > p })
	if i == 0 {
		return p
	}
	m := v.marks[i-1]
	return m.at + len(Marker) + p - m.src.end
}

// toS maps position p of y to s. A position inside a marker moves to the
// start of what it stands for, or, for the end of a span (end), to its end.
func (v *view) toS(p int, end bool) int {
	i := sort.Search(len(v.marks), func(i int) bool { return v.marks[i].at >= p })
	// marks[i-1] starts before p: p is inside it or past it.
	if i == 0 {
		return p
	}
	m := v.marks[i-1]
	switch {
	case p >= m.at+len(Marker):
		return m.src.end + p - (m.at + len(Marker))
	case end:
		return m.src.end
	}
	return m.src.start
}

// spanToS maps a span of y to s: a bound inside a marker takes in the
// whole of what the marker stands for.
func (v *view) spanToS(sp span) span {
	sp.start, sp.end = v.toS(sp.start, false), v.toS(sp.end, true)
	return sp
}

// inMarker reports whether sp lies inside an occurrence of Marker in s: it
// is not redacted again (find).
func inMarker(s string, sp span) bool {
	if sp.end-sp.start > len(Marker) {
		return false
	}
	for i := max(0, sp.end-len(Marker)); i <= sp.start && i+len(Marker) <= len(s); i++ {
		if s[i:i+len(Marker)] == Marker {
			return true
		}
	}
	return false
}

// merge sorts spans by start and merges the overlapping or touching ones;
// a merged span keeps the rule of the part that ends last.
func merge(dst []span) []span {
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

// settle returns spans, the secrets of s, with the secrets that s rendered
// with them holds, round after round, until it holds none.
func settle(s string, spans []span) []span {
	for range maxRounds {
		v := newView(s, spans, len(s))
		var hits [8]hit
		var buf [8]span
		found := find(v.y, scan(v.y, 0, hits[:0]), buf[:0], nil)
		if len(found) == 0 {
			return spans
		}
		for _, sp := range found {
			spans = append(spans, v.spanToS(sp))
		}
		spans = merge(spans)
	}
	return []span{{start: 0, end: len(s), r: unsettled}}
}

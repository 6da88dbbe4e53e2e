package redact

import (
	"io"
	"strings"
	"unicode/utf8"
	"unsafe"
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
	spans := find(s, h, buf[:0], nil)
	if len(spans) == 0 {
		return s
	}
	return render(s, 0, len(s), settle(s, spans))
}

// Contains reports whether s holds anything String would redact.
func Contains(s string) bool {
	var hits [8]hit
	h := scan(s, 0, hits[:0])
	if len(h) == 0 {
		return false
	}
	var buf [8]span
	return len(find(s, h, buf[:0], nil)) > 0
}

// Summary redacts s, then truncates the result to at most max bytes on a
// UTF-8 rune boundary. Activity, approval and diagnostic summaries use it
// with protocol.SummaryBytes. docs/protocol.md, Bounds: "summary at most 1024 UTF-8 bytes after
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
	return matchAt(s, pos, r, nil)
}

// readState is what matchAt tells a Stream of how far it read.
type readState struct {
	// open: the regexp read to the end of s, so that more text could
	// change the outcome.
	open bool
	// When no secret was taken, s[from:reach] holds everything the
	// outcome was read from: it is the same for any text that agrees with
	// s there. reach is -1 when that is not known (a secret was taken),
	// precheckDecided when a precheck decided (precheckRead bounds it).
	// exact: the outcome read s[reach-1] (the regexp read that far through
	// its reader), so that a text that ends before reach does not decide it.
	from, reach int
	exact       bool
}

// matchAt is match; when st is not nil, the regexp reads its input
// through a reader and st reports how far it read.
func matchAt(s string, pos int, r *rule, st *readState) (whole, sp span, ok, valid bool) {
	if st != nil {
		st.reach = -1
	}
	start := pos
	if r.back > 0 {
		// The trigger sits inside the match: the pattern skips lazily over
		// at most back bytes before it (see rule.back).
		start = max(0, pos-r.back)
	} else if r.left != nil && !r.left(before(s, pos)) {
		if st != nil {
			st.from, st.reach = max(0, pos-1), min(len(s), pos+maxTrigger)
		}
		return
	}
	if !prechecks(s, pos, r) {
		if st != nil {
			// precheckRead, when it is needed (Stream.settle).
			st.from, st.reach = max(0, pos-1), precheckDecided
		}
		return
	}
	end := len(s)
	if r.limit > 0 && start+r.limit+1 < end {
		// One byte past the longest match keeps a trailing \b or $ honest.
		end = start + r.limit + 1
	}
	re := r.re()
	if r.oneLine {
		// The newline ends any match; the regexp still sees it, as it would
		// in the whole text, for a trailing \b or $.
		if nl := strings.IndexByte(s[start:end], '\n'); nl >= 0 {
			end = start + nl + 1
		}
	}
	var m []int
	read := end // where the text the regexp read ends
	if st == nil || end < len(s) {
		// Bounded by the rule's limit or the line: no more text can reach
		// the regexp.
		m = re.FindStringSubmatchIndex(s[start:end])
	} else {
		rd := runeReader{s: s[start:end]}
		m = re.FindReaderSubmatchIndex(&rd)
		st.open = rd.eof && end == len(s)
		read = start + rd.i
	}
	if m == nil {
		if st != nil {
			st.from, st.reach, st.exact = max(0, start-1), read, read < end
		}
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
	valid = sp.start < sp.end && !inMarker(s, sp) && (r.valid == nil || r.valid(s[sp.start:sp.end])) &&
		(r.check == nil || r.check(s, whole, sp)) && (r.gl == nil || r.gl.accepts(s, whole, sp))
	if st != nil && !valid {
		st.from, st.reach = checksRead(s, start, read, r, whole, sp)
	}
	return whole, sp, true, valid
}

// precheckDecided is readState.reach when a precheck decided.
const precheckDecided = -2

// prechecks runs the cheap checks before the regexp (precheck.go): a false
// is final.
func prechecks(s string, pos int, r *rule) bool {
	return !(r.assign && !assignAhead(s, pos, r.assignMin) ||
		!skipPrechecks && (r.pre != nil && !r.pre(s, pos) || r.gl != nil && r.assign && r.back == 0 && !r.gl.mayHold(s, pos)))
}

// precheckRead bounds what the checks before the regexp read from pos on:
// assignAhead reads at most assignSkip bytes of name, 9 of operator,
// quotes and space, and assignMin of value; assignPre reads no further
// than the end of the line (its spaces, quoted and bare values stop
// there); mayHold reads at most assignSkip bytes of name and 10 more to
// where a run of value bytes starts, which ends at the line's end at the
// latest. TestPrecheckRead holds them to it.
func precheckRead(s string, pos int, r *rule) int {
	lo := min(len(s), pos+assignSkip+16+r.assignMin)
	if i := strings.IndexByte(s[lo:], '\n'); i >= 0 {
		return lo + i + 1
	}
	return len(s)
}

// checksRead returns the bounds of what a match that the checks did not
// take was read from: the regexp's text, up to s[start:read], and around
// it what the checks after it read: a Marker's length either side of the
// secret (inMarker), the byte after it (notProse), the rest of the token
// (extend), gitleaks' context run before the match and, for a rule with
// allowlists, the match's line (lineOf); two bytes past the match, as
// final asks.
func checksRead(s string, start, read int, r *rule, whole, sp span) (from, reach int) {
	from = max(0, min(start, whole.start, sp.start-len(Marker))-1)
	reach = min(len(s), max(read, whole.end+2, sp.end+len(Marker)+1))
	if r.gl != nil {
		from = max(0, min(from, whole.start-r.gl.ctxMax-1))
		if len(r.gl.allow) > 0 {
			lo, hi := lineBounds(s, whole)
			from, reach = max(0, min(from, lo-1)), min(len(s), max(reach, hi+1))
		}
	}
	return from, reach
}

// extendMax bounds how far a secret is extended over the rest of its token.
const extendMax = 256

// assignSkip bounds the name, quotes and space between a trigger and its
// assignment operator: a gitleaks keyword rule allows 20 bytes of name past
// a keyword (itself up to 30) and 3 of quotes or space.
const assignSkip = 64

var (
	nameByte  = class("A-Za-z0-9_.\t\n\v\f\r '\"-")
	assignOp  = class("=:>|?,")
	valueLead = class("`'\"\t\n\v\f\r =")
	valueByte = class("A-Za-z0-9_.=+/~-")
)

// assignAhead reports whether an assignment operator follows pos past at
// most assignSkip bytes of name, quotes and space, and after it (past at
// most 5 bytes of quotes, space and =) a run of at least value bytes of
// valueByte. It reports true when s ends before that is decided: the rest
// may be in the next delta.
func assignAhead(s string, pos, value int) bool {
	end := min(len(s), pos+assignSkip)
	i := pos
	for i < end && nameByte[s[i]] {
		i++
	}
	if i == len(s) {
		return true
	}
	if i == end || !assignOp[s[i]] {
		return false
	}
	if value == 0 {
		return true
	}
	// The rest of the operator (:=, =>, ||, ?=) and the quotes, space and
	// = before the value. Only '=' may also be the value's: counting every
	// '=' skipped keeps this an upper bound of the value's length.
	i++
	eq := 0
	for n := 0; i < len(s) && (assignOp[s[i]] || valueLead[s[i]]) && n < 8; n++ {
		if s[i] == '=' {
			eq++
		}
		i++
	}
	n := eq
	for i < len(s) && valueByte[s[i]] && n < value {
		i, n = i+1, n+1
	}
	return n >= value || i == len(s)
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
// of the part that ends last. outs, when not nil, holds one outcome per hit
// (Stream): an outcome more text cannot change is recorded there and not
// matched again.
func find(s string, hits []hit, dst []span, outs []outcome) []span {
	return merge(findAll(s, hits, dst, outs))
}

// findAll is find before the spans merge: one a secret, in hit order.
func findAll(s string, hits []hit, dst []span, outs []outcome) []span {
	for i, h := range hits {
		if outs != nil {
			switch outs[i].state {
			case outSecret:
				dst = append(dst, outs[i].sp)
				continue
			case outNone:
				continue
			}
		}
		r := rules[h.rule]
		if outs == nil {
			if _, sp, ok, valid := match(s, h.pos, r); ok && valid {
				dst = append(dst, sp)
			}
			continue
		}
		var st readState
		whole, sp, ok, valid := matchAt(s, h.pos, r, &st)
		if ok && valid {
			dst = append(dst, sp)
		}
		if !st.open && final(s, r, whole, sp, ok) {
			outs[i] = outcome{state: outNone, from: st.from, reach: st.reach, exact: st.exact}
			if ok && valid {
				outs[i] = outcome{state: outSecret, sp: sp, reach: -1}
			}
		}
	}
	return dst
}

// final reports whether the outcome of rule r, whose regexp did not read
// to the end of the window s, is the one any longer window would give: so
// are the checks after it.
func final(s string, r *rule, whole, sp span, ok bool) bool {
	switch {
	case !ok:
		return true
	case sp.end+2 > len(s) || whole.end+2 > len(s):
		return false // not settled (Stream.slow)
	case r.extend && sp.end < len(s) && r.tail[s[sp.end]]:
		return false // extension stopped at extendMax, not at the end of the token
	case r.gl != nil && len(r.gl.allow) > 0 && strings.IndexByte(s[whole.end:], '\n') < 0 && len(s)-whole.end < 1024:
		return false // an allowlist may read the rest of the line
	}
	return true
}

// runeReader reads a string as runes and records reading past its end.
type runeReader struct {
	s   string
	i   int
	eof bool
}

func (rd *runeReader) ReadRune() (rune, int, error) {
	if rd.i >= len(rd.s) {
		rd.eof = true
		return 0, 0, io.EOF
	}
	c, n := utf8.DecodeRuneInString(rd.s[rd.i:])
	rd.i += n
	return c, n, nil
}

// outcome is what a Stream knows of one trigger hit in its window.
type outcome struct {
	state uint8 // outOpen, outNone or outSecret
	sp    span  // the secret, when outSecret
	// settled: matched again in the window rendered with its secrets
	// (Stream.settle), with an outcome no more text can change; done, in
	// a round of Stream.settle: so far in this round.
	settled, done bool
	// from, reach and exact, for outNone, are readState's: the outcome was
	// read from w[from:reach] (reach -1: not known).
	from, reach int
	exact       bool
	// wait: Stream.settle found no outcome in the window up to there,
	// with no Marker in it.
	wait int
}

const (
	outOpen   = iota // not decided: more text may change the outcome
	outNone          // no secret at this hit, whatever follows
	outSecret        // the secret sp, whatever follows
)

// render returns s[from:to] with every span, clipped to that range,
// replaced by Marker. Spans are sorted and disjoint.
func render(s string, from, to int, spans []span) string {
	b := appendRender(make([]byte, 0, to-from+len(spans)*len(Marker)), s, from, to, spans)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// appendRender is render appending to dst.
func appendRender(dst []byte, s string, from, to int, spans []span) []byte {
	pos := from
	for _, sp := range spans {
		start, end := max(sp.start, from), min(sp.end, to)
		if start >= end {
			continue
		}
		dst = append(dst, s[pos:start]...)
		dst = append(dst, Marker...)
		pos = end
	}
	return append(dst, s[pos:to]...)
}

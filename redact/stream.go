package redact

import (
	"unicode/utf8"
	"unsafe"
)

// Stream bounds.
const (
	// Holdback bounds what a Stream holds back for one open candidate (a
	// trigger whose outcome more text may change): it is held from the
	// first byte its secret could take up to 2*Holdback bytes; past that
	// it is taken as it stands. A secret is recognised as long as the part
	// of it needed to recognise it (an API key's prefix and minimum
	// length, a JWT's header and first payload bytes, a PEM header) fits.
	Holdback = 256
	// contextBytes of already emitted text stay in the window so that
	// word boundaries and keys before a value read as they do in String,
	// and the byte before a match that starts up to rule.back bytes before
	// a trigger which itself may start before the cut (at most maxTrigger-1
	// bytes: TestContextBytes).
	contextBytes = 128
	// maxContext bounds the emitted text kept for the triggers of open
	// candidates whose secret starts well after them.
	maxContext = 1024
	// swallowAt is the length from which an open secret (one still growing
	// at the end of the window) is emitted as Marker at once, and the rest
	// of its run dropped as it arrives, instead of being held back.
	swallowAt = 64
	// pemCarry bytes of a swallowed private-key block are kept to find a
	// footer split across deltas; a footer is at most 71 bytes.
	pemCarry = 96
)

// Stream redacts one segment of text that arrives as deltas. Push returns
// the text that is safe to emit now; it holds back only what could still
// become part of a secret (hold.go): an open candidate from the first byte
// its secret could take, and a trigger not yet complete at the end. Idle
// releases the latter when the producer pauses. Flush returns the rest at
// the end of the segment. The zero value is ready to use. A Stream is not
// safe for concurrent use.
//
// Whenever no secret (no match of a rule, counted from its first byte,
// key included, in the text, in a round of settle, or in the text up to
// the end of a delta; nor a run of secrets that settle's rounds join) is
// longer than swallowAt bytes, the
// concatenation of all Push
// results and Flush equals String of the concatenated deltas, wherever the
// deltas were split (Idle aside: a trigger it shows is not taken back).
// Longer secrets are still caught: once recognised they become one Marker
// and the rest of their run is dropped as it arrives.
type Stream struct {
	// buf is the window: buf[:ctx] was emitted already and is kept as
	// context; buf[ctx:] is held back. It lies in store, and moves to the
	// front of it only when it reaches the end (room), not at every Push.
	buf   []byte
	store []byte
	ctx   int
	// hits are the triggers in buf, each scanned once, and outs what is
	// known of each. With no trigger in the window, no rule can match and
	// the text goes out as is. next is where the scan of the next delta
	// starts (a trigger may straddle the boundary).
	hits []hit
	outs []outcome
	next int
	// marks are the secrets in the window that no trigger's outcome holds:
	// those found again by settle, and those whose trigger left the
	// window while they did not.
	marks []span

	// While an open secret is being dropped: tail is the byte class of its
	// run, or pem is set and carry holds its last bytes.
	tail  *[256]bool
	pem   bool
	carry []byte
	// last is the last byte dropped, kept as context afterwards.
	last byte
	// slab holds the text Push returned without a trigger in sight; what
	// it returned is never written again.
	slab []byte
}

// slabSize bounds the memory one retained result of Push may keep alive.
const slabSize = 4 << 10

// Push adds delta to the segment and returns the text now safe to emit,
// possibly empty. It never cuts inside a UTF-8 sequence. Clean text is
// returned from a 4 KiB slab the Stream fills, one allocation per slab
// rather than per Push (a result kept keeps its slab alive); PushTo
// allocates nothing.
func (s *Stream) Push(delta string) string {
	if s.tail != nil || s.pem {
		if delta = s.drop(delta); delta == "" {
			return ""
		}
	}
	s.add(delta)
	if len(s.hits) == 0 {
		cut := s.cleanCut(false)
		out := s.emit(s.buf[s.ctx:cut])
		s.shift(cut)
		return out
	}
	return string(s.slow(nil, false))
}

// emit returns a copy of b, cut from the slab when it fits in a quarter
// of one.
func (s *Stream) emit(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > slabSize/4 {
		return string(b)
	}
	if cap(s.slab)-len(s.slab) < len(b) {
		s.slab = make([]byte, 0, slabSize)
	}
	n := len(s.slab)
	s.slab = append(s.slab, b...)
	return unsafe.String(&s.slab[n], len(b))
}

// PushTo is Push appending the text now safe to emit to dst: a text without
// a trigger in sight (the common case) costs no allocation.
func (s *Stream) PushTo(dst []byte, delta string) []byte {
	if s.tail != nil || s.pem {
		if delta = s.drop(delta); delta == "" {
			return dst
		}
	}
	s.add(delta)
	return s.release(dst, false)
}

// IdleTo appends to dst what the Stream holds back that is not part of an
// open candidate: the producer has paused, and a trigger not yet complete
// at the end of the window is shown rather than held for the length of the
// pause. An open candidate stays held. Call it when no delta has come for
// a while (the caller's clock); it allocates nothing without a trigger in
// sight.
func (s *Stream) IdleTo(dst []byte) []byte {
	if s.tail != nil || s.pem || len(s.buf) == s.ctx {
		return dst
	}
	return s.release(dst, true)
}

// Held is the number of raw bytes the Stream holds back.
func (s *Stream) Held() int { return len(s.buf) - s.ctx }

// release appends what may go out of the window now to dst.
func (s *Stream) release(dst []byte, idle bool) []byte {
	if len(s.hits) == 0 {
		cut := s.cleanCut(idle)
		dst = append(dst, s.buf[s.ctx:cut]...)
		s.shift(cut)
		return dst
	}
	return s.slow(dst, idle)
}

// add appends delta to the window and notes the triggers it completes.
func (s *Stream) add(delta string) {
	old, n := len(s.buf), len(s.hits)
	s.room(len(delta))
	s.buf = append(s.buf, delta...)
	// The window is only read while the string view is alive.
	s.hits, s.next = scanNew(unsafe.String(unsafe.SliceData(s.buf), len(s.buf)), s.next, old, s.hits)
	for range len(s.hits) - n {
		s.outs = append(s.outs, outcome{})
	}
}

// cleanCut is where the window may be cut for output as far as text
// without a trigger decides: before an unfinished UTF-8 sequence at its
// end and, unless idle, before a trigger not yet complete there.
func (s *Stream) cleanCut(idle bool) int {
	cut := len(s.buf)
	if cut == s.ctx {
		return cut
	}
	if i := runeStart(s.buf, cut-1, s.ctx); !utf8.FullRune(s.buf[i:]) {
		cut = i
	}
	if !idle {
		cut = min(cut, prefixHold(unsafe.String(unsafe.SliceData(s.buf), len(s.buf)), s.ctx))
	}
	return cut
}

// slow handles a window that holds a trigger: it finds the spans, holds
// each open candidate from the first byte its secret could take, and
// either emits up to the cut or, for an open secret that has grown long,
// emits Marker for it and starts dropping its run.
func (s *Stream) slow(dst []byte, idle bool) []byte {
	// A view of the window, read only until the window changes below
	// (appendRender copies what it emits).
	w := unsafe.String(unsafe.SliceData(s.buf), len(s.buf))
	var buf [8]span
	spans := findAll(w, s.hits, buf[:0], s.outs)
	// Where the secrets that run to the end of the window start: a secret
	// still growing is swallowed by its own length, not that of a closed
	// one it touches.
	growing := len(w)
	for _, sp := range spans {
		if sp.end == len(w) {
			growing = min(growing, sp.start)
		}
	}
	spans = merge(append(spans, s.marks...))
	cut := s.cleanCut(idle)
	end := cut // the cut were nothing held for a secret
	for i, h := range s.hits {
		if s.outs[i].state == outOpen {
			cut = min(cut, max(s.ctx, rules[h.rule].spanFrom(w, h.pos)))
		}
	}
	for _, sp := range spans {
		if sp.end <= s.ctx || sp.start > cut {
			continue
		}
		closed := sp.r.pem && footerRE().MatchString(w[sp.start:sp.end])
		// open: the secret runs to the end of the window and may go on.
		if open := !closed && sp.end == len(w); open && sp.swallowable() && sp.end-max(sp.start, growing) >= swallowAt {
			// What goes out before it is settled against its Marker: a
			// secret found there may join it.
			_, spans = s.settle(w, spans, len(w), true)
			sp = spans[len(spans)-1]
			dst = appendRender(dst, w, s.ctx, max(sp.start, s.ctx), spans)
			dst = append(dst, Marker...)
			s.startDrop(w, sp)
			return dst
		}
	}
	cut, spans = s.settle(w, spans, cut, false)
	// Past twice the bound an open candidate is taken as it stands.
	if len(w)-cut > 2*Holdback {
		cut, spans = s.settle(w, spans, end, true)
	}
	if cut <= s.ctx {
		return dst
	}
	dst = appendRender(dst, w, s.ctx, cut, spans)
	s.shift(cut)
	return dst
}

// hold moves cut back before a secret that reaches into the held text,
// or ends where it starts (a secret starting there would merge with it):
// it is held whole.
func (s *Stream) hold(w string, spans []span, cut int) int {
	for i := len(spans) - 1; i >= 0; i-- {
		if sp := spans[i]; sp.start < cut && (sp.end > cut || sp.end == cut && cut < len(w)) {
			cut = sp.start
		}
	}
	return max(cut, s.ctx)
}

// settle is settle (settle.go) over the window, up to cut: each trigger
// whose outcome is decided is matched again in w[:cut] rendered with the
// secrets before cut (spans, s.marks among them). A secret found there
// joins s.marks. A trigger whose outcome there more text could change (it
// read up to the cut, and what follows may yet become a Marker) holds the
// text its secret could take, as an open candidate does: the cut moves
// back to it. When nothing changes in a round, the outcomes are settled
// and the cut and spans are returned. With force the text up to cut goes
// out whatever follows: outcomes are taken as they stand.
func (s *Stream) settle(w string, spans []span, cut int, force bool) (int, []span) {
	for {
		if !force {
			cut = s.hold(w, spans, cut)
		}
		v := newView(w, spans, cut)
		held := cut
		var foundBuf [4]span
		found := foundBuf[:0]
		for i, h := range s.hits {
			o := &s.outs[i]
			if o.state == outOpen || o.settled {
				continue
			}
			r := rules[h.rule]
			end := h.pos + int(h.n)
			switch {
			case v.covers(h.pos, end):
				// Inside a secret: not a trigger of the rendered text.
				o.done = true
				continue
			case end > cut:
				if !force {
					held = min(held, r.spanFrom(w, h.pos))
				}
				continue
			}
			if o.state == outNone && o.reach == precheckDecided {
				o.reach = precheckRead(w, h.pos, r)
			}
			if o.state == outNone && o.reach >= 0 && !v.covers(o.from, min(o.reach, cut)) {
				if o.reach <= cut {
					// Decided by text before the cut with no Marker in
					// it: the outcome is the same in the view.
					o.done = true
					continue
				}
				if o.exact && !force {
					// Decided by text past the cut, which may yet become
					// a Marker.
					held = min(held, r.spanFrom(w, h.pos))
					continue
				}
			}
			if !force && len(v.marks) == 0 && cut <= o.wait {
				// Not decided in this text or a longer one before.
				held = min(held, r.spanFrom(w, h.pos))
				continue
			}
			p := v.toY(h.pos)
			var st readState
			whole, sp, ok, valid := matchAt(v.y, p, r, &st)
			if !force && (st.open || !final(v.y, r, whole, sp, ok)) {
				if len(v.marks) == 0 {
					o.wait = cut
				}
				held = min(held, v.toS(r.spanFrom(v.y, p), false))
				continue
			}
			o.done = true
			if ok && valid {
				found = append(found, v.spanToS(sp))
			}
		}
		held = max(held, s.ctx)
		changed := held < cut || len(found) > 0
		for i := range s.outs {
			o := &s.outs[i]
			o.settled = o.settled || o.done && !changed
			o.done = false
		}
		if held < cut {
			cut = held
			continue
		}
		if len(found) > 0 {
			s.marks = append(s.marks, found...)
			spans = merge(append(spans, found...))
			continue
		}
		return cut, spans
	}
}

// Flush returns the redacted rest of the segment and resets the Stream for
// the next one.
func (s *Stream) Flush() string {
	out := ""
	if s.tail == nil && !s.pem && len(s.buf) > s.ctx {
		// A view of the window: render copies what it emits.
		w := unsafe.String(unsafe.SliceData(s.buf), len(s.buf))
		var buf [8]span
		spans := merge(append(find(w, s.hits, buf[:0], s.outs), s.marks...))
		out = render(w, s.ctx, len(w), settle(w, spans))
	}
	s.buf, s.ctx = s.store[:0], 0
	s.tail, s.pem, s.carry, s.last = nil, false, s.carry[:0], 0
	s.forget()
	return out
}

// startDrop empties the window after an open secret was emitted as Marker.
func (s *Stream) startDrop(w string, sp span) {
	if sp.r.pem {
		s.pem = true
		s.carry = append(s.carry[:0], w[max(sp.start, len(w)-pemCarry):]...)
	} else {
		s.tail = sp.r.tail
	}
	s.last = w[len(w)-1]
	s.buf, s.ctx = s.store[:0], 0
	s.forget()
}

// forget drops the window's triggers when the window is emptied.
func (s *Stream) forget() {
	s.hits, s.outs, s.next, s.marks = s.hits[:0], s.outs[:0], 0, s.marks[:0]
}

// drop discards the continuation of an open secret from delta and returns
// what follows it. Afterwards the last dropped byte is context.
func (s *Stream) drop(delta string) string {
	if s.pem {
		return s.dropBlock(delta)
	}
	// "--" ends the run too: no token holds it, and it may open a
	// private-key block ("-----BEGIN") that must be seen whole.
	i := 0
	for i < len(delta) && s.tail[delta[i]] && (delta[i] != '-' || i+1 == len(delta) || delta[i+1] != '-') {
		i++
	}
	if i > 0 {
		s.last = delta[i-1]
	}
	if i == len(delta) {
		return ""
	}
	s.tail = nil
	s.buf = s.store[:0]
	s.room(1)
	s.buf = append(s.buf, s.last)
	s.ctx = 1
	s.forget()
	return delta[i:]
}

// dropBlock is drop for a private-key block: it ends at its footer, whose
// end is the context of what follows, as in String (a keyword in it,
// "KEY-----,", may start a match there).
func (s *Stream) dropBlock(delta string) string {
	s.carry = append(s.carry, delta...)
	loc := footerRE().FindIndex(s.carry)
	if loc == nil {
		if n := len(s.carry) - pemCarry; n > 0 {
			s.carry = s.carry[:copy(s.carry, s.carry[n:])]
		}
		return ""
	}
	i := loc[1] - (len(s.carry) - len(delta))
	footer := s.carry[max(0, loc[1]-contextBytes):loc[1]]
	s.pem = false
	s.buf = s.store[:0]
	s.room(len(footer))
	s.buf = append(s.buf, footer...)
	s.carry = s.carry[:0]
	s.ctx = len(s.buf)
	// The footer's triggers are noted now; the scan goes on from there.
	s.forget()
	s.hits, s.next = scanNew(unsafe.String(unsafe.SliceData(s.buf), len(s.buf)), 0, 0, s.hits)
	for range s.hits {
		s.outs = append(s.outs, outcome{})
	}
	return delta[i:]
}

// shift drops emitted text from the window, keeping contextBytes of it,
// and more for the trigger of an open candidate (up to maxContext).
func (s *Stream) shift(cut int) {
	k := cut - contextBytes
	for i, h := range s.hits {
		if s.outs[i].state == outOpen || !s.outs[i].settled {
			k = min(k, h.pos-contextBytes)
		}
	}
	k = runeStart(s.buf, max(0, k, cut-maxContext), 0)
	s.buf = s.buf[k:]
	s.ctx = cut - k
	s.next = max(0, s.next-k)
	if len(s.hits) == 0 && len(s.marks) == 0 {
		return
	}
	// Triggers now outside the window go, with what is known of them; a
	// secret of theirs still in the window stays as a mark.
	n := 0
	for _, sp := range s.marks {
		if sp.end > k {
			sp.start, sp.end = max(0, sp.start-k), sp.end-k
			s.marks[n] = sp
			n++
		}
	}
	s.marks = s.marks[:n]
	n = 0
	for i, h := range s.hits {
		if h.pos < k {
			if o := s.outs[i]; o.state == outSecret && o.sp.end > k {
				s.marks = append(s.marks, span{start: max(0, o.sp.start-k), end: o.sp.end - k, r: o.sp.r, group: o.sp.group})
			}
			continue
		}
		o := s.outs[i]
		o.sp.start, o.sp.end = o.sp.start-k, o.sp.end-k
		o.from = max(0, o.from-k)
		if o.reach >= 0 {
			o.reach -= k
		}
		o.wait -= k
		s.hits[n], s.outs[n] = hit{h.pos - k, h.rule, h.n}, o
		n++
	}
	s.hits, s.outs = s.hits[:n], s.outs[:n]
}

// room makes room for n more bytes after the window: in store past it
// when there is, else by moving the window to the front of store, or to a
// new store of twice what it needs.
func (s *Stream) room(n int) {
	if cap(s.buf)-len(s.buf) >= n {
		return
	}
	need := len(s.buf) + n
	if cap(s.store) < 2*need {
		store := make([]byte, 0, max(2*need, 1024))
		s.buf, s.store = append(store, s.buf...), store
		return
	}
	s.buf = s.store[:copy(s.store[:cap(s.store)], s.buf)]
}

// runeStart moves i back to the start of the UTF-8 sequence it falls in,
// but not below floor. Invalid bytes count as sequences of one.
func runeStart(b []byte, i, floor int) int {
	for j := i; j >= floor && j > i-utf8.UTFMax; j-- {
		if j == floor || utf8.RuneStart(b[j]) {
			return j
		}
	}
	return i
}

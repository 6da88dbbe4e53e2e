package redact

import (
	"unicode/utf8"
	"unsafe"
)

// Stream bounds.
const (
	// Holdback is the most raw text a Stream keeps unemitted after Push
	// returns: a secret split across deltas is recognised as long as the
	// part of it needed to recognise it (for example an API key's prefix
	// and minimum length, a JWT's header and first payload bytes, a PEM
	// header) fits in Holdback bytes. One exception: a matched secret that
	// is not yet complete and not of a run-shaped kind (a credential path
	// whose last name may still grow) is held from its start, up to
	// 2*Holdback bytes; past that it is redacted as it stands.
	Holdback = 256
	// contextBytes of already emitted text stay in the window so that
	// word boundaries and keys before a value read as they do in String.
	contextBytes = 64
	// swallowAt is the length from which an open secret (one still growing
	// at the end of the window) is emitted as Marker at once, and the rest
	// of its run dropped as it arrives, instead of being held back.
	swallowAt = 64
	// pemCarry bytes of a swallowed private-key block are kept to find a
	// footer split across deltas; a footer is at most 71 bytes.
	pemCarry = 96
)

// Stream redacts one segment of text that arrives as deltas. Push returns
// the text that is safe to emit now, holding back at most Holdback bytes
// that could be the start of a secret continuing in the next delta; Flush
// returns the rest at the end of the segment. The zero value is ready to
// use. A Stream is not safe for concurrent use.
//
// Whenever no secret (no match of a rule, counted from its first byte,
// key included) is longer than swallowAt bytes, the concatenation of all Push
// results and Flush equals String of the concatenated deltas, wherever the
// deltas were split. Longer secrets are still caught: once recognised they
// become one Marker and the rest of their run is dropped as it arrives.
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
	cut := s.add(delta)
	if cut < 0 {
		return ""
	}
	if len(s.hits) == 0 {
		out := s.emit(s.buf[s.ctx:cut])
		s.shift(cut)
		return out
	}
	return s.slow(cut)
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
	cut := s.add(delta)
	if cut < 0 {
		return dst
	}
	if len(s.hits) == 0 {
		dst = append(dst, s.buf[s.ctx:cut]...)
		s.shift(cut)
		return dst
	}
	return append(dst, s.slow(cut)...)
}

// add appends delta to the window, notes the triggers it completes, and
// returns where the window may be cut for output (never inside a UTF-8
// sequence), or -1 while no more than Holdback bytes are held back.
func (s *Stream) add(delta string) int {
	old, n := len(s.buf), len(s.hits)
	s.room(len(delta))
	s.buf = append(s.buf, delta...)
	// The window is only read while the string view is alive.
	s.hits, s.next = scanNew(unsafe.String(unsafe.SliceData(s.buf), len(s.buf)), s.next, old, s.hits)
	for range len(s.hits) - n {
		s.outs = append(s.outs, outcome{})
	}
	if len(s.buf)-s.ctx <= Holdback {
		return -1
	}
	return nextRuneStart(s.buf, len(s.buf)-Holdback)
}

// slow handles a window that holds a trigger: it finds the spans, moves the
// cut out of any secret, and either emits up to the cut or, for an open
// secret that has grown long, emits Marker for it and starts dropping its
// run.
func (s *Stream) slow(cut int) string {
	// A view of the window, read only until the window changes below
	// (render copies what it emits).
	w := unsafe.String(unsafe.SliceData(s.buf), len(s.buf))
	var buf [8]span
	spans := find(w, s.hits, buf[:0], s.outs)
	for i, sp := range spans {
		if sp.end <= s.ctx {
			continue
		}
		start := max(sp.start, s.ctx)
		closed := sp.r.pem && footerRE().MatchString(w[sp.start:sp.end])
		// open: the secret runs to the end of the window and may go on.
		// settled: two more bytes follow it, which is all the lookahead
		// any rule needs (a word boundary, or a dot before an extension),
		// so more text cannot change it.
		open := !closed && sp.end == len(w)
		settled := closed || sp.end+2 <= len(w)
		switch {
		case open && sp.swallowable() && sp.end-sp.start >= swallowAt:
			out := render(w, s.ctx, start, spans[:i]) + Marker
			s.startDrop(w, sp)
			return out
		case !settled && sp.start < cut:
			// Hold an unsettled secret from its start; past twice the bound
			// it is taken as complete rather than held without limit.
			if len(w)-sp.start <= 2*Holdback {
				cut = start
			} else {
				cut = len(w)
			}
		case settled && sp.start < cut && cut < sp.end:
			// A complete secret crossing the cut goes out whole.
			cut = sp.end
		}
	}
	if cut <= s.ctx {
		return ""
	}
	out := render(w, s.ctx, cut, spans)
	s.shift(cut)
	return out
}

// Flush returns the redacted rest of the segment and resets the Stream for
// the next one.
func (s *Stream) Flush() string {
	out := ""
	if s.tail == nil && !s.pem && len(s.buf) > s.ctx {
		// A view of the window: render copies what it emits.
		w := unsafe.String(unsafe.SliceData(s.buf), len(s.buf))
		var buf [8]span
		out = render(w, s.ctx, len(w), find(w, s.hits, buf[:0], s.outs))
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
	s.hits, s.outs, s.next = s.hits[:0], s.outs[:0], 0
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

// shift drops emitted text from the window, keeping contextBytes of it.
func (s *Stream) shift(cut int) {
	k := runeStart(s.buf, max(0, cut-contextBytes), 0)
	s.buf = s.buf[k:]
	s.ctx = cut - k
	s.next = max(0, s.next-k)
	if len(s.hits) == 0 {
		return
	}
	// Triggers now outside the window go, with what is known of them.
	n := 0
	for i, h := range s.hits {
		if h.pos < k {
			continue
		}
		o := s.outs[i]
		o.sp.start, o.sp.end = o.sp.start-k, o.sp.end-k
		s.hits[n], s.outs[n] = hit{h.pos - k, h.rule}, o
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

// nextRuneStart moves i forward to the start of the next UTF-8 sequence
// if it falls inside one. Invalid bytes count as sequences of one.
func nextRuneStart(b []byte, i int) int {
	for j := i; j < len(b) && j < i+utf8.UTFMax; j++ {
		if utf8.RuneStart(b[j]) {
			return j
		}
	}
	return i
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

package history

import (
	"sort"
	"strconv"
	"strings"

	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
)

// Projection is an immutable, bounded history projection: the redacted,
// chunked entries of one attachment at one revision, laid out into pages.
// It is safe for concurrent use because nothing mutates it after Finish.
type Projection struct {
	sessionID string
	revision  string
	gen       uint64
	msgs      []pmsg
	parts     []part
	starts    []int32 // first part index of each page; starts[0] == 0
	complete  bool
}

type pmsg struct {
	id      string
	kind    Kind
	partial bool
	usage   *Usage // a usage entry's counts
	session bool   // an approval entry: allowed for the session
}

// part is one entry: a text part of a message, stored once and serialized
// per page.
type part struct {
	text  string
	msg   int32
	index int32
	size  int32 // serialized entry bytes
	last  bool
}

// Revision returns the projection's opaque revision.
func (p *Projection) Revision() string { return p.revision }

// Complete reports whether the projection is complete (no interrupted turn).
func (p *Projection) Complete() bool { return p.complete }

// Entries returns the number of entries (parts) in the projection.
func (p *Projection) Entries() int { return len(p.parts) }

// Pages returns the number of pages.
func (p *Projection) Pages() int { return len(p.starts) }

// cursorReserve is the longest next_cursor value a page may carry: a quoted
// cursor of the maximum ID length.
const cursorReserve = protocol.MaxIDBytes + 2

// pageFixed is the serialized size of a page around its entries, reserving
// the longest cursor.
func (p *Projection) pageFixed() int {
	return len(`{"session_id":`) + jsonenc.EscapedLen(p.sessionID) + 2 +
		len(`,"revision":`) + jsonenc.EscapedLen(p.revision) + 2 +
		len(`,"entries":[`) + len(`],"next_cursor":`) + cursorReserve +
		len(`,"complete":false}`)
}

// layout packs parts greedily into pages of at most HistoryPageEntries
// entries and HistoryPageBytes serialized bytes.
func (p *Projection) layout() {
	fixed := p.pageFixed()
	p.starts = []int32{0}
	n, size := 0, fixed
	for i := range p.parts {
		add := int(p.parts[i].size)
		if n > 0 {
			add++ // comma
		}
		if n == protocol.HistoryPageEntries || (n > 0 && size+add > protocol.HistoryPageBytes) {
			p.starts = append(p.starts, int32(i))
			n, size, add = 0, fixed, int(p.parts[i].size)
		}
		n++
		size += add
	}
}

func (p *Projection) cursor(start int32) string {
	return "p" + strconv.FormatUint(p.gen, 10) + "." + strconv.Itoa(int(start))
}

// page finds the page a cursor names: null starts at page 0; a cursor must be
// one this projection issues. docs/protocol.md, Choices: "A well-formed cursor that this
// attachment did not issue, or issued for another revision, is stale_revision".
func (p *Projection) page(cursor *string) (int, bool) {
	if cursor == nil {
		return 0, true
	}
	prefix := "p" + strconv.FormatUint(p.gen, 10) + "."
	rest, ok := strings.CutPrefix(*cursor, prefix)
	if !ok {
		return 0, false
	}
	start, err := strconv.Atoi(rest)
	if err != nil || start <= 0 || strconv.Itoa(start) != rest {
		return 0, false
	}
	j := sort.Search(len(p.starts), func(k int) bool { return int(p.starts[k]) >= start })
	if j == len(p.starts) || int(p.starts[j]) != start {
		return 0, false
	}
	return j, true
}

// AppendPage appends the history.page result object for cursor (nil: the
// first page) to dst. It answers stale_revision for a cursor this projection
// did not issue. The result is at most HistoryPageBytes bytes.
func (p *Projection) AppendPage(dst []byte, cursor *string) ([]byte, protocol.Code) {
	j, ok := p.page(cursor)
	if !ok {
		return dst, protocol.CodeStaleRevision
	}
	from := int(p.starts[j])
	to := len(p.parts)
	last := j == len(p.starts)-1
	if !last {
		to = int(p.starts[j+1])
	}
	dst = append(dst, `{"session_id":`...)
	dst = jsonenc.AppendString(dst, p.sessionID)
	dst = append(dst, `,"revision":`...)
	dst = jsonenc.AppendString(dst, p.revision)
	dst = append(dst, `,"entries":[`...)
	for i := from; i < to; i++ {
		if i > from {
			dst = append(dst, ',')
		}
		pt := &p.parts[i]
		dst = appendEntry(dst, &p.msgs[pt.msg], pt)
	}
	dst = append(dst, `],"next_cursor":`...)
	if last {
		dst = append(dst, "null"...)
	} else {
		dst = jsonenc.AppendString(dst, p.cursor(p.starts[j+1]))
	}
	// docs/protocol.md, history.page: "complete=true only on last page of a complete projection".
	if last && p.complete {
		dst = append(dst, `,"complete":true}`...)
	} else {
		dst = append(dst, `,"complete":false}`...)
	}
	return dst, ""
}

func appendEntry(dst []byte, m *pmsg, pt *part) []byte {
	dst = append(dst, `{"message_id":`...)
	dst = jsonenc.AppendString(dst, m.id)
	dst = append(dst, `,"kind":"`...)
	dst = append(dst, kindNames[m.kind]...)
	dst = append(dst, `","text":`...)
	dst = jsonenc.AppendString(dst, pt.text)
	dst = append(dst, `,"partial":`...)
	dst = strconv.AppendBool(dst, m.partial)
	dst = append(dst, `,"part":`...)
	dst = strconv.AppendInt(dst, int64(pt.index), 10)
	dst = append(dst, `,"last_part":`...)
	dst = strconv.AppendBool(dst, pt.last)
	if m.kind == KindApproval {
		dst = append(dst, `,"scope":"`...)
		dst = append(dst, scopeOf(m)...)
		dst = append(dst, '"')
	}
	if u := m.usage; u != nil {
		dst = append(dst, `,"input_tokens":`...)
		dst = strconv.AppendInt(dst, u.InputTokens, 10)
		dst = append(dst, `,"output_tokens":`...)
		dst = strconv.AppendInt(dst, u.OutputTokens, 10)
		dst = append(dst, `,"cached_input_tokens":`...)
		dst = strconv.AppendInt(dst, u.CachedInputTokens, 10)
		dst = append(dst, `,"reasoning_tokens":`...)
		dst = strconv.AppendInt(dst, u.ReasoningTokens, 10)
		dst = append(dst, `,"context_tokens":`...)
		if u.HasContext {
			dst = strconv.AppendInt(dst, u.ContextTokens, 10)
		} else {
			dst = append(dst, "null"...)
		}
		dst = append(dst, `,"context_window":`...)
		if u.Window > 0 {
			dst = strconv.AppendInt(dst, u.Window, 10)
		} else {
			dst = append(dst, "null"...)
		}
	}
	return append(dst, '}')
}

// entryLen is len(appendEntry(nil, m, pt)) without building it.
func entryLen(m *pmsg, pt *part) int {
	n := len(`{"message_id":`) + jsonenc.EscapedLen(m.id) + 2 +
		len(`,"kind":"`) + len(kindNames[m.kind]) + len(`","text":`) +
		jsonenc.EscapedLen(pt.text) + 2 + len(`,"partial":`) + len(`,"part":`) +
		len(strconv.Itoa(int(pt.index))) + len(`,"last_part":`) + len(`}`)
	n += boolLen(m.partial) + boolLen(pt.last)
	if m.kind == KindApproval {
		n += len(`,"scope":""`) + len(scopeOf(m))
	}
	if u := m.usage; u != nil {
		n += len(`,"input_tokens":`) + intLen(u.InputTokens) + len(`,"output_tokens":`) + intLen(u.OutputTokens) +
			len(`,"cached_input_tokens":`) + intLen(u.CachedInputTokens) + len(`,"reasoning_tokens":`) + intLen(u.ReasoningTokens) +
			len(`,"context_tokens":`) + len(`,"context_window":`) + 2*len("null")
		if u.HasContext {
			n += intLen(u.ContextTokens) - len("null")
		}
		if u.Window > 0 {
			n += intLen(u.Window) - len("null")
		}
	}
	return n
}

// scopeOf is an approval entry's scope: "session" or "once".
func scopeOf(m *pmsg) string {
	if m.session {
		return "session"
	}
	return "once"
}

func intLen(n int64) int { return len(strconv.FormatInt(n, 10)) }

func boolLen(b bool) int {
	if b {
		return 4
	}
	return 5
}

package history

// Tests of the paging, budget, revision and persistence rules of the history
// package at their exact bounds (docs/protocol.md, "Owned sessions and chat
// history" and the bounds table).

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
)

// maxRevision is the longest revision revisionOf can produce.
var maxRevision = revisionOf(1<<64-1, [32]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})

// finishSnapshot snapshots the reconciled, redacted text of every message the
// builder holds (the reference the pages must reproduce), then finishes it.
func finishSnapshot(b *Builder, sessionID, revision string, gen uint64, torn bool) (*Projection, []string, protocol.Code) {
	var want []string
	for _, m := range b.msgs {
		text := m.text
		if m.kind == KindAssistant && !m.done {
			text = string(m.pending)
		}
		want = append(want, redact.String(text))
	}
	if b.turnOpen || torn {
		want = append(want, InterruptedText)
	}
	p, code := b.Finish(sessionID, revision, gen, torn)
	return p, want, code
}

// checkPages walks every page of p from the null cursor and checks every
// page-level and entry-level rule; want (optional) is the text of every
// message in order, which the parts must concatenate back to exactly.
func checkPages(t testing.TB, p *Projection, sessionID string, want []string) {
	t.Helper()
	var cursor *string
	type msgAcc struct {
		id   string
		text strings.Builder
		next int
		done bool
	}
	var msgs []*msgAcc
	seenIDs := map[string]bool{}
	for n := 0; ; n++ {
		raw, code := p.AppendPage(nil, cursor)
		if code != "" {
			t.Fatalf("page %d: %s", n, code)
		}
		if len(raw) > protocol.HistoryPageBytes {
			t.Fatalf("page %d is %d serialized bytes > %d", n, len(raw), protocol.HistoryPageBytes)
		}
		if !utf8.Valid(raw) || !json.Valid(raw) {
			t.Fatalf("page %d is not valid UTF-8 JSON", n)
		}
		var pg page
		if err := json.Unmarshal(raw, &pg); err != nil {
			t.Fatalf("page %d: %v", n, err)
		}
		if len(pg.Entries) > protocol.HistoryPageEntries {
			t.Fatalf("page %d has %d entries", n, len(pg.Entries))
		}
		if pg.SessionID != sessionID || pg.Revision != p.revision {
			t.Fatalf("page %d: session %q revision %q", n, pg.SessionID, pg.Revision)
		}
		if !ValidID(pg.Revision) {
			t.Fatalf("revision %q outside the ID grammar", pg.Revision)
		}
		last := pg.NextCursor == nil
		if pg.Complete && (!last || !p.complete) {
			t.Fatalf("page %d: complete=true on a page that is not the last of a complete projection", n)
		}
		if last && pg.Complete != p.complete {
			t.Fatalf("last page complete=%v; projection complete=%v", pg.Complete, p.complete)
		}
		if !last && !ValidID(*pg.NextCursor) {
			t.Fatalf("cursor %q outside the ID grammar", *pg.NextCursor)
		}
		if !last && len(pg.Entries) == 0 {
			t.Fatalf("page %d: empty page with a next cursor", n)
		}
		for _, en := range pg.Entries {
			if len(en.Text) > protocol.HistoryChunkBytes {
				t.Fatalf("part of %d raw bytes", len(en.Text))
			}
			if !utf8.ValidString(en.Text) {
				t.Fatalf("part splits a UTF-8 sequence")
			}
			if !ValidID(en.MessageID) {
				t.Fatalf("message_id %q outside the ID grammar", en.MessageID)
			}
			if en.Part == 0 {
				if seenIDs[en.MessageID] {
					t.Fatalf("message_id %q used by two messages", en.MessageID)
				}
				seenIDs[en.MessageID] = true
				if len(msgs) > 0 && !msgs[len(msgs)-1].done {
					t.Fatalf("message %q has no last part", msgs[len(msgs)-1].id)
				}
				msgs = append(msgs, &msgAcc{id: en.MessageID})
			}
			if len(msgs) == 0 {
				t.Fatalf("first entry has part %d", en.Part)
			}
			m := msgs[len(msgs)-1]
			if m.id != en.MessageID || m.next != en.Part || m.done {
				t.Fatalf("part %d of %q out of order", en.Part, en.MessageID)
			}
			if en.Part > 0 && en.Text == "" {
				t.Fatalf("empty continuation part of %q", en.MessageID)
			}
			m.text.WriteString(en.Text)
			m.next++
			m.done = en.LastPart
		}
		if last {
			break
		}
		cursor = pg.NextCursor
	}
	if len(msgs) > 0 && !msgs[len(msgs)-1].done {
		t.Fatalf("last message has no last part")
	}
	if want == nil {
		return
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages on pages; want %d", len(msgs), len(want))
	}
	for i, m := range msgs {
		if m.text.String() != want[i] {
			t.Fatalf("message %d (%s) does not concatenate back (%d bytes; want %d)", i, m.id, m.text.Len(), len(want[i]))
		}
	}
}

// TestWorstCasePages: longest session ID, revision, cursor and stored
// message IDs, every byte escaping to six, 4-byte runes, escapes straddling
// part boundaries, many tiny entries: every page fits 32,768 bytes and 100
// entries, and every message concatenates back.
func TestWorstCasePages(t *testing.T) {
	sid := strings.Repeat("S", protocol.MaxIDBytes)
	mid := func(i int) string { // 64-byte stored message IDs, no dot
		s := fmt.Sprintf("m%d-", i)
		return s + strings.Repeat("x", protocol.MaxIDBytes-len(s))
	}
	texts := map[string]string{
		"six":     strings.Repeat("\x01", 60_000),
		"runes":   strings.Repeat("😀", 20_000),
		"mixed":   strings.Repeat("a😀\x1f\"é\\漢\n", 9_000),
		"offset":  "ab" + strings.Repeat("😀\x01", 12_000),
		"quotes":  strings.Repeat(`"`, 40_000),
		"plain":   strings.Repeat("z", 3*protocol.HistoryChunkBytes+1),
		"exact":   strings.Repeat("z", protocol.HistoryChunkBytes),
		"exact+1": strings.Repeat("z", protocol.HistoryChunkBytes+1),
		"empty":   "",
		"tiny":    "t",
	}
	names := []string{"six", "runes", "mixed", "offset", "quotes", "plain", "exact", "exact+1", "empty", "tiny"}
	b := NewBuilder(Detail{})
	n := 0
	add := func(r Record) {
		r.SessionID = sid
		if !b.Add(&r) {
			t.Fatalf("over budget at record %d", n)
		}
		n++
	}
	for i, name := range names {
		run := fmt.Sprintf("run-%d", i)
		add(Record{Type: TypeInput, RunID: run, MessageID: mid(2 * i), Text: texts[name]})
		add(Record{Type: TypeAssistantChunk, RunID: run, MessageID: mid(2*i + 1), Text: texts[name]})
		add(Record{Type: TypeAssistant, RunID: run, MessageID: mid(2*i + 1), Text: texts[name], HasText: true})
		add(Record{Type: TypeReasoningSummary, RunID: run, Text: texts[name], ProviderSummary: true})
		add(Record{Type: TypeRunCompleted, RunID: run, Outcome: "failed", ErrorCode: "execution_failed"})
	}
	// Many tiny entries with long IDs: the 100-entry rule must cut pages.
	for i := range 450 {
		add(Record{Type: TypeInput, RunID: "r", MessageID: mid(1000 + i), Text: "\x01"})
		add(Record{Type: TypeRunCompleted, RunID: "r", Outcome: "completed"})
	}
	// An interrupted turn last: the projection is incomplete.
	add(Record{Type: TypeInput, RunID: "open", MessageID: mid(5000), Text: "q"})
	p, want, code := finishSnapshot(b, sid, maxRevision, 1<<64-1, false)
	if code != "" {
		t.Fatal(code)
	}
	if p.Complete() {
		t.Fatal("interrupted projection reported complete")
	}
	if p.Pages() < 5 {
		t.Fatalf("only %d pages", p.Pages())
	}
	checkPages(t, p, sid, want)
	// The largest cursor: the maximum generation and a 5-digit start.
	if c := p.cursor(protocol.HistorySnapshotParts); len(c) > protocol.MaxIDBytes || !ValidID(c) {
		t.Fatalf("cursor %q", c)
	}
	if len(maxRevision) > protocol.MaxIDBytes || !ValidID(maxRevision) {
		t.Fatalf("revision %q", maxRevision)
	}
}

// TestPageFillsExactly: a page is cut exactly at the serialized byte
// limit (a page that would be one byte over moves the entry to the next
// page), and the 100-entry rule is exact.
func TestPageFillsExactly(t *testing.T) {
	sid := "s"
	for _, extra := range []int{-1, 0, 1} {
		t.Run(fmt.Sprint(extra), func(t *testing.T) {
			// Two compaction entries: the second is sized so that the page is
			// HistoryPageBytes+extra bytes with both on it.
			b := NewBuilder(Detail{})
			b.Add(&Record{Type: TypeCompaction, SessionID: sid, Text: strings.Repeat("a", 16200)})
			b.Add(&Record{Type: TypeCompaction, SessionID: sid, Text: ""})
			p, _, _ := finishSnapshot(b, sid, "v1-x", 1, false)
			fixed := p.pageFixed()
			used := fixed + int(p.parts[0].size) + 1 + int(p.parts[1].size)
			room := protocol.HistoryPageBytes - used + extra
			if room > protocol.HistoryChunkBytes {
				t.Fatalf("test setup: room %d", room)
			}
			b = NewBuilder(Detail{})
			b.Add(&Record{Type: TypeCompaction, SessionID: sid, Text: strings.Repeat("a", 16200)})
			b.Add(&Record{Type: TypeCompaction, SessionID: sid, Text: strings.Repeat("b", room)})
			p, want, code := finishSnapshot(b, sid, "v1-x", 1, false)
			if code != "" {
				t.Fatal(code)
			}
			wantPages := 1
			if extra > 0 {
				wantPages = 2
			}
			if p.Pages() != wantPages {
				t.Fatalf("%d pages; want %d", p.Pages(), wantPages)
			}
			checkPages(t, p, sid, want)
		})
	}
	for _, n := range []int{100, 101, 200, 201} {
		b := NewBuilder(Detail{})
		for i := range n {
			b.Add(&Record{Type: TypeCompaction, SessionID: sid, Text: fmt.Sprint(i)})
		}
		p, want, _ := finishSnapshot(b, sid, "v1-x", 1, false)
		if p.Pages() != (n+99)/100 {
			t.Fatalf("%d entries: %d pages", n, p.Pages())
		}
		checkPages(t, p, sid, want)
	}
}

// TestSnapshotBoundaries: exactly 10,000 parts and exactly 8 MiB of
// serialized entries are accepted; one more part or byte is history_limit,
// including when the interrupted diagnostic is the one over.
func TestSnapshotBoundaries(t *testing.T) {
	sid := "s"
	parts := func(n int, open bool) protocol.Code {
		b := NewBuilder(Detail{})
		for i := range n {
			if !b.Add(&Record{Type: TypeCompaction, SessionID: sid, Text: "c"}) {
				return protocol.CodeHistoryLimit
			}
			_ = i
		}
		if open {
			// An input whose turn never completed: the interrupted
			// diagnostic is one more part.
			if !b.Add(&Record{Type: TypeInput, SessionID: sid, MessageID: "u", Text: "q"}) {
				return protocol.CodeHistoryLimit
			}
		}
		p, code := b.Finish(sid, "v1-x", 1, false)
		if code == "" {
			checkPages(t, p, sid, nil)
		}
		return code
	}
	for _, c := range []struct {
		n    int
		open bool
		want protocol.Code
	}{
		{protocol.HistorySnapshotParts, false, ""},
		{protocol.HistorySnapshotParts + 1, false, protocol.CodeHistoryLimit},
		{protocol.HistorySnapshotParts - 2, true, ""},
		{protocol.HistorySnapshotParts - 1, true, protocol.CodeHistoryLimit},
	} {
		if got := parts(c.n, c.open); got != c.want {
			t.Fatalf("%d parts (open turn %v): %q; want %q", c.n, c.open, got, c.want)
		}
	}

	// Serialized bytes: k full 16,000-byte entries, then one entry sized to
	// land the total at exactly 8 MiB + extra.
	const k = 520
	build := func(lastLen int) (*Projection, protocol.Code) {
		b := NewBuilder(Detail{})
		for range k {
			b.Add(&Record{Type: TypeCompaction, SessionID: sid, Text: strings.Repeat("a", 16000)})
		}
		b.Add(&Record{Type: TypeCompaction, SessionID: sid, Text: strings.Repeat("b", lastLen)})
		return b.Finish(sid, "v1-x", 1, false)
	}
	p, code := build(0)
	if code != "" {
		t.Fatal(code)
	}
	total := 0
	for _, pt := range p.parts {
		total += int(pt.size)
	}
	room := protocol.HistorySnapshotBytes - total
	if room <= 0 || room > protocol.HistoryChunkBytes {
		t.Fatalf("test setup: room %d", room)
	}
	if _, code := build(room); code != "" {
		t.Fatalf("exactly 8 MiB serialized: %q", code)
	}
	if _, code := build(room + 1); code != protocol.CodeHistoryLimit {
		t.Fatalf("8 MiB + 1 serialized: %q", code)
	}
}

// writeLines writes a session of id: the header, then filler task_scope
// records up to lines lines in total, the last of which is padded so that
// the file is exactly size bytes (size 0: no padding).
func writeSessionOfSize(t testing.TB, e *env, id string, lines int, size int64, torn string) {
	t.Helper()
	f, err := os.Create(filepath.Join(e.dir, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	emit := func(b []byte) {
		w.Write(b)
		written += int64(len(b))
	}
	emit(encode(e.header(id)))
	scope := encode(Record{Type: TypeTaskScope, SessionID: id, Ceiling: "w"})
	for range lines - 2 {
		emit(scope)
	}
	if lines >= 2 {
		if size == 0 {
			emit(scope)
		} else {
			pre := `{"type":"tool_result","session_id":"` + id + `","call_id":"c","text":"`
			pad := size - written - int64(len(pre)) - int64(len("\"}\n"))
			if pad < 0 {
				t.Fatalf("test setup: pad %d", pad)
			}
			emit([]byte(pre))
			for pad > 0 {
				n := min(pad, 1<<20)
				emit(bytes.Repeat([]byte("p"), int(n)))
				pad -= n
			}
			emit([]byte("\"}\n"))
		}
	}
	emit([]byte(torn))
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if size != 0 && written != size+int64(len(torn)) {
		t.Fatalf("test setup: wrote %d bytes; want %d", written, size)
	}
}

// TestReadBudgetBoundaries: exactly 100,000 lines and exactly 64 MiB
// open; one more line or byte is history_limit, at open and when a snapshot
// is rebuilt after an append.
func TestReadBudgetBoundaries(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MiB files")
	}
	e := newEnv(t)
	cases := []struct {
		name  string
		lines int
		size  int64
		torn  string
		want  protocol.Code
	}{
		{"100,000 lines", protocol.StoredHistoryLines, 0, "", ""},
		{"100,001 lines", protocol.StoredHistoryLines + 1, 0, "", protocol.CodeHistoryLimit},
		{"64 MiB", 3, protocol.StoredHistoryBytes, "", ""},
		{"64 MiB + 1", 3, protocol.StoredHistoryBytes + 1, "", protocol.CodeHistoryLimit},
		{"64 MiB - 1 plus a 1-byte torn line", 3, protocol.StoredHistoryBytes - 1, "{", ""},
		{"64 MiB plus a 1-byte torn line", 3, protocol.StoredHistoryBytes, "{", protocol.CodeHistoryLimit},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := fmt.Sprint("b", i)
			writeSessionOfSize(t, e, id, c.lines, c.size, c.torn)
			a, _, code := e.store.Open(id, nil)
			if code != c.want {
				t.Fatalf("Open = %q; want %q", code, c.want)
			}
			if a == nil {
				return
			}
			defer a.Close()
			entries, complete := allPages(t, a)
			if complete != (c.torn == "") || len(entries) != map[bool]int{true: 0, false: 1}[c.torn == ""] {
				t.Fatalf("%d entries, complete=%v", len(entries), complete)
			}
			// One more line makes the session over budget: the rebuilt
			// snapshot answers history_limit, never a fake page.
			rev, err := a.Append(Record{Type: TypeTaskScope, Ceiling: "w"}, false)
			if err != nil {
				t.Fatal(err)
			}
			_, code = a.Page(rev, nil)
			if code != protocol.CodeHistoryLimit {
				t.Fatalf("page past the read budget: %q", code)
			}
		})
	}
}

// TestStickyRevisions: every open, reopen and append issues a new
// revision; no earlier revision or cursor is ever accepted again, even when
// the file content (and so the fingerprint) is back to what it was.
func TestStickyRevisions(t *testing.T) {
	e := newEnv(t)
	var recs []Record
	recs = append(recs, e.header("s"))
	for i := range 120 {
		recs = append(recs, turn("s", fmt.Sprint("r", i), "q", "a")...)
	}
	data := encode(recs...)
	path := e.write(t, "s", data)
	type issued struct{ rev, cursor string }
	var old []issued
	firstCursor := func(a *Attachment) issued {
		t.Helper()
		raw, code := a.Page(a.Revision(), nil)
		if code != "" {
			t.Fatal(code)
		}
		var pg page
		json.Unmarshal(raw, &pg)
		if pg.NextCursor == nil {
			t.Fatal("one page only")
		}
		return issued{a.Revision(), *pg.NextCursor}
	}
	checkStale := func(a *Attachment) {
		t.Helper()
		for _, o := range old {
			if o.rev == a.Revision() {
				t.Fatalf("revision %q issued twice", o.rev)
			}
			if _, code := a.Page(o.rev, nil); code != protocol.CodeStaleRevision {
				t.Fatalf("old revision %q: %q", o.rev, code)
			}
			if _, code := a.Page(a.Revision(), &o.cursor); code != protocol.CodeStaleRevision {
				t.Fatalf("old cursor %q: %q", o.cursor, code)
			}
		}
	}
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	old = append(old, firstCursor(a))
	// Reopen of the same content: a new revision.
	a2, _, code := e.store.Open("s", a)
	if code != "" {
		t.Fatal(code)
	}
	checkStale(a2)
	old = append(old, firstCursor(a2))
	// Append, then restore the original bytes behind the lease: content
	// equal to the first revision's, yet its revision stays stale.
	if _, err := a2.Append(Record{Type: TypeTaskScope, Ceiling: "w"}, true); err != nil {
		t.Fatal(err)
	}
	checkStale(a2)
	old = append(old, firstCursor(a2))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	a2.mu.Lock()
	a2.proj = nil // as after an append: the next snapshot rereads the file
	a2.mu.Unlock()
	if _, code := a2.Snapshot(); code != "" {
		t.Fatal(code)
	}
	checkStale(a2)
	old = append(old, firstCursor(a2))
	// Close, open again: still new.
	a2.Close()
	if _, code := a2.Page(old[len(old)-1].rev, nil); code != protocol.CodeSessionMissing {
		t.Fatalf("page after close: %q", code)
	}
	a3, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer a3.Close()
	checkStale(a3)
	// Another session's revision and cursor are stale here.
	e.write(t, "t", encode(append([]Record{e.header("t")}, turn("t", "r", "q", "a")...)...))
	b, _, code := e.store.Open("t", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer b.Close()
	if _, code := a3.Page(b.Revision(), nil); code != protocol.CodeStaleRevision {
		t.Fatalf("other session's revision: %q", code)
	}
	// A lazy handle reopened before persistence gets a new revision too.
	l, code := e.store.Create("lazy", Selection{})
	if code != "" {
		t.Fatal(code)
	}
	r1 := l.Revision()
	l2, _, code := e.store.Open("lazy", l)
	if code != "" {
		t.Fatal(code)
	}
	defer l2.Close()
	if l2.Revision() == r1 {
		t.Fatal("lazy reopen kept the revision")
	}
	if _, code := l2.Page(r1, nil); code != protocol.CodeStaleRevision {
		t.Fatalf("lazy old revision: %q", code)
	}
	raw, code := l2.Page(l2.Revision(), nil)
	if code != "" || !bytes.Contains(raw, []byte(`"entries":[],"next_cursor":null,"complete":true}`)) {
		t.Fatalf("lazy page %q: %s", raw, code)
	}
}

// TestTornAndSpecialFiles: a torn last line of any shape (a complete
// record without LF, only whitespace, a lone byte of a UTF-8 sequence) is
// ignored with a partial diagnostic and complete=false; an LF-terminated bad
// line is session_invalid.
func TestTornAndSpecialFiles(t *testing.T) {
	e := newEnv(t)
	base := encode(append([]Record{e.header("s")}, turn("s", "r1", "q", "a")...)...)
	rc := encode(Record{Type: TypeRunCompleted, SessionID: "s", RunID: "r1", Outcome: "completed"})
	for i, c := range []struct {
		tail     string
		want     protocol.Code
		complete bool
	}{
		{"", "", true},
		{string(rc[:len(rc)-1]), "", false},
		{" ", "", false},
		{"\xf0\x9f", "", false},
		{"\r", "", false},
		{"\n", protocol.CodeSessionInvalid, false},
		{"\r\n", protocol.CodeSessionInvalid, false},
		{string(rc[:len(rc)-2]) + "\n", protocol.CodeSessionInvalid, false},
		{"\xf0\x9f\n", protocol.CodeSessionInvalid, false},
	} {
		id := fmt.Sprint("t", i)
		data := bytes.ReplaceAll(append(append([]byte(nil), base...), c.tail...), []byte(`"s"`), []byte(`"`+id+`"`))
		e.write(t, id, data)
		a, _, code := e.store.Open(id, nil)
		if code != c.want {
			t.Fatalf("tail %q: %q; want %q", c.tail, code, c.want)
		}
		if a == nil {
			continue
		}
		entries, complete := allPages(t, a)
		last := entries[len(entries)-1]
		if complete != c.complete || (!complete && (last.Kind != "diagnostic" || !last.Partial)) {
			t.Fatalf("tail %q: complete=%v last=%+v", c.tail, complete, last)
		}
		a.Close()
	}
}

// TestProjectionFilters: what the wire must never show.
func TestProjectionFilters(t *testing.T) {
	sid := "s"
	b := NewBuilder(Detail{})
	for _, r := range []Record{
		{Type: TypeInput, RunID: "r", MessageID: "u", Text: "q"},
		{Type: TypeReasoningSummary, RunID: "r", ID: "x", Text: "NOPROV1"},
		{Type: TypeReasoningSummary, RunID: "r", Text: "NOPROV2"},
		{Type: TypeReasoningSummary, RunID: "r", ID: "x", Text: "shown", ProviderSummary: true},
		{Type: TypeReasoningSummary, RunID: "r", ID: "x", Text: "NOPROV3"}, // never replaces a verified one
		{Type: TypeToolCall, RunID: "r", CallID: "c", Name: "shell", Arguments: `{"RAWPARAM":1}`},
		{Type: TypeToolResult, RunID: "r", CallID: "c", Text: "RAWRESULT"},
		{Type: TypeActivity, RunID: "r", ActivityID: "c", Kind: "tool", State: "completed", Name: "shell", Summary: "exit 0"},
		{Type: TypeInternalInput, RunID: "r", Text: "INTERNALPROMPT"},
		{Type: TypeTaskScope, RunID: "r", Ceiling: "CEILING"},
		{Type: TypeRunCompleted, RunID: "r", Outcome: "completed", ErrorCode: "ERRCODE"},
	} {
		r.SessionID = sid
		b.Add(&r)
	}
	p, want, code := finishSnapshot(b, sid, "v1-x", 1, false)
	if code != "" {
		t.Fatal(code)
	}
	checkPages(t, p, sid, want)
	raw, _ := p.AppendPage(nil, nil)
	for _, bad := range []string{"NOPROV", "RAWPARAM", "RAWRESULT", "INTERNALPROMPT", "CEILING", "ERRCODE"} {
		if bytes.Contains(raw, []byte(bad)) {
			t.Fatalf("page shows %s: %s", bad, raw)
		}
	}
	if !bytes.Contains(raw, []byte(`"shown"`)) {
		t.Fatalf("verified summary missing: %s", raw)
	}
}

// TestDiagnosticCodeFromDisk: a stored diagnostic record whose code is
// not a code of version 1 is projected verbatim. The worker only ever
// writes known codes (stages/worker/sink_agent.go maps unknown runner codes
// to execution_failed before persisting), so such a record was not written
// by this backend; like any other record outside the schema it should make
// the read session_invalid (docs/protocol.md, session.open: "Stored reads reject diagnostics ..."),
// not put an unvetted code on the wire.
func TestDiagnosticCodeFromDisk(t *testing.T) {
	e := newEnv(t)
	recs := append([]Record{e.header("s")}, turn("s", "r1", "q", "a")...)
	recs = append(recs, Record{Type: TypeDiagnostic, SessionID: "s", RunID: "r1", Code: "hook_failed", Summary: "x"})
	e.write(t, "s", encode(recs...))
	a, _, code := e.store.Open("s", nil)
	if code == protocol.CodeSessionInvalid {
		return
	}
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	entries, _ := allPages(t, a)
	for _, en := range entries {
		if en.Kind == "diagnostic" && !protocol.Code(strings.SplitN(en.Text, ":", 2)[0]).Known() && en.Text != InterruptedText {
			t.Fatalf("diagnostic with unknown code on the wire: %q", en.Text)
		}
	}
}

const fsizeHelperEnv = "MAGI_HISTORY_FSIZE_HELPER"

// TestDirSyncAfterFailedFirstWrite: when the first append of a lazy
// session creates the file but its write fails (EFBIG here, ENOSPC/EIO in
// life), Append returns an error and keeps a.file. The next append finds
// a.file set, so created is false and it fsyncs only the file, never the
// directory. docs/protocol.md, Choices: "input.persisted and persistence=durable mean written
// and fsynced (and the directory fsynced when the file was created)": the
// acknowledged input can vanish with the directory entry after a crash.
// The test runs a helper under strace and looks for an fsync of the
// sessions directory.
func TestDirSyncAfterFailedFirstWrite(t *testing.T) {
	if mode := os.Getenv(fsizeHelperEnv); mode != "" {
		firstWriteHelper(mode)
		return
	}
	dirSynced := func(mode string) bool {
		e := newEnv(t)
		tr := straceHelper(t, "TestDirSyncAfterFailedFirstWrite", fsizeHelperEnv+"="+mode, "DIR="+e.dir, "CWD="+e.cwd)
		// openat(AT_FDCWD, "<dir>", O_RDONLY|O_CLOEXEC|O_DIRECTORY) = N, then fsync(N)
		open := regexp.MustCompile(`openat\(AT_FDCWD, "` + regexp.QuoteMeta(e.dir) + `", [^)]*O_DIRECTORY[^)]*\) = (\d+)`)
		for _, m := range open.FindAllSubmatch(tr, -1) {
			if bytes.Contains(tr, []byte("fsync("+string(m[1])+")")) {
				return true
			}
		}
		return false
	}
	if !dirSynced("control") {
		t.Fatal("control: the creating append did not fsync the directory (trace parsing broken?)")
	}
	if !dirSynced("efbig") {
		t.Fatal("input acknowledged as persisted, but the sessions directory was never fsynced after the file was created")
	}
}

func firstWriteHelper(mode string) {
	s := NewStore(os.Getenv("DIR"), os.Getenv("CWD"), fixedNow)
	a, code := s.Create("f", Selection{})
	if code != "" {
		fmt.Println("create:", code)
		os.Exit(1)
	}
	in := Record{Type: TypeInput, RunID: "r1", MessageID: "u1", Text: strings.Repeat("q", 4096)}
	if mode == "efbig" {
		restore, err := ostest.LimitFileSize(100)
		if err != nil {
			fmt.Println("file size limit:", err)
			os.Exit(1)
		}
		if _, err := a.AppendInput(in); err == nil {
			fmt.Println("first append unexpectedly succeeded")
			os.Exit(1)
		}
		restore()
	}
	if _, err := a.AppendInput(in); err != nil {
		fmt.Println("append:", err)
		os.Exit(1)
	}
	a.Close()
	fmt.Println("helper ok")
	os.Exit(0)
}

// FuzzProjection drives the builder with record sequences decoded from
// the fuzz input (types, long and colliding IDs, worst-case texts, torn
// ends) and checks every page rule plus exact concatenation of every
// message against a reference reconciliation.
func FuzzProjection(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add(bytes.Repeat([]byte{1, 0xff, 2, 0xff, 3, 0x80}, 40))
	f.Add(bytes.Repeat([]byte{0, 7, 9, 200, 33, 1, 250, 4}, 60))
	f.Fuzz(projectionCase)
}

func projectionCase(t *testing.T, data []byte) {
	alphabet := []string{"a", "\x01", "😀", "é", `"`, `\`, "\n", "漢", "sk-abcdefghijklmnop ", " "}
	ids := []string{"a", "b", strings.Repeat("M", protocol.MaxIDBytes), "u1", "x-y_z"}
	runs := []string{"r1", "r2", strings.Repeat("R.", protocol.MaxIDBytes/2)}
	{
		if len(data) > 1024 {
			return
		}
		sid := strings.Repeat("s", 1+len(data)%protocol.MaxIDBytes)
		i := 0
		next := func() int {
			if i >= len(data) {
				return 0
			}
			i++
			return int(data[i-1])
		}
		text := func() string {
			n := next()
			rep := 1
			if n&0x80 != 0 {
				rep = 1 + next()*23 // up to ~6 KB per unit, 6 units: forces chunking
			}
			var sb strings.Builder
			for k := 0; k < 1+n%6; k++ {
				sb.WriteString(strings.Repeat(alphabet[next()%len(alphabet)], rep))
			}
			return sb.String()
		}
		b := NewBuilder(Detail{})
		for i < len(data) {
			op := next()
			r := Record{SessionID: sid, RunID: runs[next()%len(runs)]}
			switch op % 9 {
			case 0:
				r.Type, r.MessageID, r.Text = TypeInput, ids[next()%len(ids)], text()
			case 1:
				r.Type, r.MessageID, r.Text = TypeAssistantChunk, ids[next()%len(ids)], text()
			case 2:
				r.Type, r.MessageID = TypeAssistant, ids[next()%len(ids)]
				if next()%3 != 0 {
					r.Text, r.HasText = text(), true
				}
				r.Partial = next()%2 == 0
			case 3:
				r.Type, r.Text, r.ProviderSummary = TypeReasoningSummary, text(), next()%2 == 0
				if next()%2 == 0 {
					r.ID = ids[next()%len(ids)]
				}
			case 4:
				r.Type, r.ActivityID, r.Kind, r.Name = TypeActivity, ids[next()%len(ids)], "tool", "shell"
				r.State = []string{"started", "completed", "failed"}[next()%3]
				r.Summary = text()
				if len(r.Summary) > protocol.SummaryBytes {
					r.Summary = r.Summary[:chunkPrefix(r.Summary, protocol.SummaryBytes)]
				}
			case 5:
				r.Type, r.Text = TypeCompaction, text()
			case 6:
				r.Type, r.Code = TypeDiagnostic, string(protocol.CodePersistenceFailed)
			case 7:
				r.Type, r.Outcome = TypeRunCompleted, "completed"
			case 8:
				r.Type, r.CallID, r.Text = TypeToolResult, "c", "RAW"+text()
			}
			if r.Validate() != nil {
				t.Fatalf("generator made an invalid record %+v", r)
			}
			if !b.Add(&r) {
				return
			}
		}
		torn := len(data) > 0 && data[0]%5 == 0
		p, want, code := finishSnapshot(b, sid, maxRevision, 1<<64-1, torn)
		if code != "" {
			return
		}
		if torn && p.Complete() {
			t.Fatal("torn projection complete")
		}
		checkPages(t, p, sid, want)
	}
}

// chunkPrefix returns the longest prefix length of s within n bytes that
// ends on a rune boundary.
func chunkPrefix(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// TestLongLinesAtBufferEdges: lines around the 64 KiB read buffer (and
// a torn line that spans it) read back exactly, with the same fingerprint
// as the bytes on disk.
func TestLongLinesAtBufferEdges(t *testing.T) {
	e := newEnv(t)
	hdr := encode(e.header("s"))
	pre := `{"type":"compaction","session_id":"s","text":"`
	for _, size := range []int{readBufferBytes - 1, readBufferBytes, readBufferBytes + 1, 2 * readBufferBytes, 2*readBufferBytes + 1} {
		for _, torn := range []bool{false, true} {
			textLen := size - len(pre) - len("\"}\n")
			line := pre + strings.Repeat("😀", textLen/4) + strings.Repeat("a", textLen%4) + "\"}\n"
			if len(line) != size {
				t.Fatalf("setup: %d", len(line))
			}
			data := append(append([]byte(nil), hdr...), line...)
			if torn {
				data = append(data, line[:size-1]...)
			}
			var got []string
			sc, code := scan(bytes.NewReader(data), "s", true, func(r *Record) protocol.Code {
				got = append(got, r.Text)
				return ""
			})
			if code != "" || len(got) != 1 || len(got[0]) != textLen || sc.torn != torn {
				t.Fatalf("size %d torn %v: %q %d records torn=%v", size, torn, code, len(got), sc.torn)
			}
			if sc.valid != int64(len(hdr)+size) || sc.sum != sha256Of(data) || sc.lines != 2+map[bool]int{true: 1}[torn] {
				t.Fatalf("size %d torn %v: valid %d lines %d", size, torn, sc.valid, sc.lines)
			}
		}
	}
}

func sha256Of(b []byte) [32]byte {
	h := sha256.New()
	h.Write(b)
	var s [32]byte
	copy(s[:], h.Sum(nil))
	return s
}

// TestCompletionOfAnotherRun: only a turn's own run_completed closes it. An
// input of run A followed only by the run_completed of run B (a damaged or
// foreign file; the worker never writes one) leaves turn A without durable
// completion: the projection is not complete. A's own completion, later,
// closes it.
func TestCompletionOfAnotherRun(t *testing.T) {
	records := []Record{
		{Type: TypeInput, RunID: "A", MessageID: "u", Text: "q"},
		{Type: TypeAssistantChunk, RunID: "A", MessageID: "a", Text: "par"},
		{Type: TypeRunCompleted, RunID: "B", Outcome: "completed"},
	}
	project := func(records []Record) *Projection {
		t.Helper()
		b := NewBuilder(Detail{})
		for _, r := range records {
			r.SessionID = "s"
			b.Add(&r)
		}
		p, code := b.Finish("s", "v1-x", 1, false)
		if code != "" {
			t.Fatal(code)
		}
		return p
	}
	if project(records).Complete() {
		t.Fatal("turn A has no durable completion, but the projection is complete")
	}
	records = append(records, Record{Type: TypeRunCompleted, RunID: "A", Outcome: "completed"})
	if !project(records).Complete() {
		t.Fatal("turn A's own run_completed does not close it")
	}
}

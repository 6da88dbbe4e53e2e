package history

import (
	"fmt"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// TestPageSizesAreExact: the size the layout counts for every entry is
// exactly its serialized length, a page's serialized length is exactly the
// fixed part plus its entries and commas (with the cursor it really
// carries), and pages are packed greedily: a page other than the last could
// not take its successor's first entry (100 entries, or one byte over
// 32,768).
func TestPageSizesAreExact(t *testing.T) {
	for _, complete := range []bool{true, false} {
		t.Run(fmt.Sprint("complete=", complete), func(t *testing.T) {
			sid := "sess-1"
			b := NewBuilder(Detail{})
			add := func(r Record) {
				r.SessionID = sid
				if !b.Add(&r) {
					t.Fatal("over budget")
				}
			}
			add(Record{Type: TypeInput, RunID: "r1", MessageID: "u1", Text: "q \"quoted\" \x01 😀"})
			// One message of more than ten parts: two-digit part numbers.
			add(Record{Type: TypeAssistantChunk, RunID: "r1", MessageID: "a1", Text: strings.Repeat("x", 12*protocol.HistoryChunkBytes+5)})
			add(Record{Type: TypeActivity, RunID: "r1", ActivityID: "t1", Kind: "tool", State: "started", Name: "shell"})
			add(Record{Type: TypeRunCompleted, RunID: "r1", Outcome: "failed"})
			for i := range 230 {
				add(Record{Type: TypeCompaction, RunID: "r1", Text: strings.Repeat("\n", i%7)})
			}
			add(Record{Type: TypeCompaction, RunID: "r1", Text: strings.Repeat("é", 7000)})
			if !complete {
				add(Record{Type: TypeInput, RunID: "r2", MessageID: "u2", Text: "open"})
			}
			p, code := b.Finish(sid, "v12-0123456789abcdef0123456789abcdef", 12, false)
			if code != "" {
				t.Fatal(code)
			}
			if p.Complete() != complete {
				t.Fatalf("complete = %v", p.Complete())
			}
			for i := range p.parts {
				pt := &p.parts[i]
				if got := len(appendEntry(nil, &p.msgs[pt.msg], pt)); int(pt.size) != got {
					t.Fatalf("part %d (index %d, last %v, partial %v): size %d; serialized %d",
						i, pt.index, pt.last, p.msgs[pt.msg].partial, pt.size, got)
				}
			}
			if p.Pages() < 4 {
				t.Fatalf("only %d pages", p.Pages())
			}
			for j := range p.starts {
				var cursor *string
				if j > 0 {
					c := p.cursor(p.starts[j])
					cursor = &c
				}
				raw, code := p.AppendPage(nil, cursor)
				if code != "" {
					t.Fatalf("page %d: %s", j, code)
				}
				from, to := int(p.starts[j]), len(p.parts)
				next := 4 // null
				if j+1 < len(p.starts) {
					to = int(p.starts[j+1])
					next = len(p.cursor(p.starts[j+1])) + 2
				}
				want := p.pageFixed() - cursorReserve + next + (to - from - 1)
				for i := from; i < to; i++ {
					want += int(p.parts[i].size)
				}
				if j == len(p.starts)-1 && complete {
					want-- // "true" is one byte shorter than "false"
				}
				if len(raw) != want {
					t.Fatalf("page %d: %d bytes; want %d", j, len(raw), want)
				}
				if len(raw) > protocol.HistoryPageBytes || to-from > protocol.HistoryPageEntries {
					t.Fatalf("page %d: %d bytes, %d entries", j, len(raw), to-from)
				}
				if j+1 < len(p.starts) && to-from < protocol.HistoryPageEntries &&
					want-next+cursorReserve+1+int(p.parts[to].size) <= protocol.HistoryPageBytes {
					t.Fatalf("page %d ends early: entry %d would still fit", j, to)
				}
			}
		})
	}
}

// TestFullPageOfManyEntries: a page of 99 entries and their 98 commas
// filled to the last byte takes no further entry, however small.
func TestFullPageOfManyEntries(t *testing.T) {
	const k = 99
	build := func(room int) *Projection {
		b := NewBuilder(Detail{})
		for range k - 1 {
			b.Add(&Record{Type: TypeCompaction, SessionID: "s", Text: strings.Repeat("a", 200)})
		}
		b.Add(&Record{Type: TypeCompaction, SessionID: "s", Text: strings.Repeat("b", room)})
		b.Add(&Record{Type: TypeInput, SessionID: "s", MessageID: "u", Text: "t"})
		b.Add(&Record{Type: TypeRunCompleted, SessionID: "s", RunID: "r", Outcome: "completed"})
		p, code := b.Finish("s", "v1-x", 1, false)
		if code != "" {
			t.Fatal(code)
		}
		return p
	}
	p := build(0)
	used := p.pageFixed() + k - 1
	for _, pt := range p.parts[:k] {
		used += int(pt.size)
	}
	room := protocol.HistoryPageBytes - used
	if room <= 0 || room > protocol.HistoryChunkBytes {
		t.Fatalf("test setup: room %d", room)
	}
	p = build(room)
	if p.Pages() != 2 || p.starts[1] != k {
		t.Fatalf("pages start at %v; want [0 %d]", p.starts, k)
	}
	raw, _ := p.AppendPage(nil, nil)
	if want := protocol.HistoryPageBytes - cursorReserve + len(p.cursor(k)) + 2; len(raw) != want {
		t.Fatalf("first page: %d bytes; want %d", len(raw), want)
	}
}

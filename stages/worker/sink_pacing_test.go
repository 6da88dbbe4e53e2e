package worker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// testSink returns a turn sink of a new durable session, its event edge
// (nobody reads it until the test does) and the session file's path.
func testSink(t *testing.T) (*turnSink, *backpressure.Queue[wire.Event], string) {
	t.Helper()
	p, q := newTestPool(t)
	dir := t.TempDir()
	store := history.NewStore(dir, t.TempDir(), time.Now)
	att, code := store.Create("session-1", history.Selection{Provider: "fixture", Model: "fixture-model"})
	if code != "" {
		t.Fatal(code)
	}
	if _, err := att.AppendInput(history.Record{Type: history.TypeInput, RunID: "run-1", MessageID: "input-1", Text: "go"}); err != nil {
		t.Fatal(err)
	}
	_, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() {
		cancel(nil)
		att.Close()
	})
	r := &activeRun{id: "run-1", sessionID: "session-1", cancel: cancel, approvals: newApprovals(p.opts.Now)}
	s := newTurnSink(p, r, att)
	t.Cleanup(s.stopIdle)
	return s, q, filepath.Join(dir, "session-1.jsonl")
}

// drain reads the edge until it closes.
func drain(q *backpressure.Queue[wire.Event]) <-chan []wire.Event {
	out := make(chan []wire.Event, 1)
	go func() {
		var evs []wire.Event
		for e := range q.C() {
			evs = append(evs, e)
		}
		out <- evs
	}()
	return out
}

// TestSinkStalledReaderDropsOlderHalf: while nobody reads the event edge,
// deltas fill it, then the text coalesces; past 256 KiB carried, the older
// half is dropped, its part number spent so that the client sees the gap
// (docs/protocol.md, Ordering and delivery: deltas may coalesce/drop under
// pressure). Every delta is whole runes within 4,000 bytes, the carry never
// grows past its bound, and the reconcile still carries the whole text.
func TestSinkStalledReaderDropsOlderHalf(t *testing.T) {
	s, q, _ := testSink(t)
	const piece = "déjà vu 😀 " // 15 bytes, multibyte runes
	var want strings.Builder
	s.SegmentStart("m1")
	for range 40000 { // 600,000 bytes
		want.WriteString(piece)
		if err := s.TextDelta("m1", piece); err != nil {
			t.Fatal(err)
		}
		if s.carry.Len() > maxCarry+len(piece) {
			t.Fatalf("carry of %d bytes; bound %d", s.carry.Len(), maxCarry)
		}
	}
	// The reader wakes up: it reads what the edge holds, then keeps up.
	var early []wire.Event
	for q.Len() > 0 {
		early = append(early, <-q.C())
	}
	evs := drain(q)
	if err := s.SegmentEnd("m1", want.String()); err != nil {
		t.Fatal(err)
	}
	if err := s.flushPending(false); err != nil {
		t.Fatal(err)
	}
	q.Close()
	next, sent, gaps := 0, 0, 0 // gaps: part numbers never received
	var reconcile strings.Builder
	for _, e := range append(early, <-evs...) {
		switch e.Name {
		case protocol.EventMessageDelta:
			if len(e.Text) == 0 || len(e.Text) > protocol.LiveChunkBytes || !utf8.ValidString(e.Text) {
				t.Fatalf("delta part %d: %d bytes, valid UTF-8 %v", e.Part, len(e.Text), utf8.ValidString(e.Text))
			}
			if e.Part < next {
				t.Fatalf("delta part %d after %d", e.Part, next-1)
			}
			gaps += e.Part - next // part numbers spent on dropped text
			next = e.Part + 1
			sent += len(e.Text)
		case protocol.EventMessageReconcile:
			reconcile.WriteString(e.Text)
		}
	}
	if gaps == 0 {
		t.Fatal("no part number was skipped; want the drops visible as gaps")
	}
	// Each dropped part is at most the older half of a full carry (a full
	// carry is maxCarry plus the delta that filled it).
	if lost := want.Len() - sent; lost > gaps*(maxCarry/2+len(piece)+utf8.UTFMax) {
		t.Fatalf("%d bytes dropped in %d drops; want at most half the carry each", lost, gaps)
	}
	if reconcile.String() != want.String() {
		t.Fatalf("reconcile holds %d bytes; want the whole %d", reconcile.Len(), want.Len())
	}
}

// TestSinkDeltasSplitInsideRunes: a provider's deltas may end inside a rune;
// the stored chunks are still whole runes (valid UTF-8) and join into the
// whole reply.
func TestSinkDeltasSplitInsideRunes(t *testing.T) {
	s, q, path := testSink(t)
	evs := drain(q)
	text := strings.Repeat("a😀漢é", 4000) // 40,000 bytes
	s.SegmentStart("m1")
	for i := 0; i < len(text); i += 7 { // 7-byte deltas, most cut inside a rune
		if err := s.TextDelta("m1", text[i:min(i+7, len(text))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SegmentEnd("m1", text); err != nil {
		t.Fatal(err)
	}
	if err := s.flushPending(false); err != nil {
		t.Fatal(err)
	}
	q.Close()
	<-evs
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var chunks strings.Builder
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct{ Type, Text string }
		if !utf8.ValidString(line) {
			t.Fatalf("record %.80q is not valid UTF-8", line)
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Type == "assistant_chunk" {
			n++
			chunks.WriteString(rec.Text)
		}
	}
	if n < 2 || chunks.String() != text {
		t.Fatalf("%d chunks holding %d bytes; want at least 2 holding the whole %d-byte reply", n, chunks.Len(), len(text))
	}
}

// TestSinkChunkAtExactlyChunkBytes: a segment of exactly 16 KiB is not
// shorter than a chunk, so it is stored as a chunk record and its
// completion record carries no second copy of the text.
func TestSinkChunkAtExactlyChunkBytes(t *testing.T) {
	s, q, path := testSink(t)
	evs := drain(q)
	text := strings.Repeat("z", history.ChunkBytes)
	s.SegmentStart("m1")
	if err := s.TextDelta("m1", text); err != nil {
		t.Fatal(err)
	}
	if err := s.SegmentEnd("m1", text); err != nil {
		t.Fatal(err)
	}
	if err := s.flushPending(false); err != nil {
		t.Fatal(err)
	}
	q.Close()
	<-evs
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	chunks, completions := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			Type string
			Text *string
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		switch rec.Type {
		case "assistant_chunk":
			chunks++
			if rec.Text == nil || *rec.Text != text {
				t.Fatal("the chunk does not hold the whole segment")
			}
		case "assistant":
			completions++
			if rec.Text != nil {
				t.Fatal("the completion record of a chunked segment holds the text again")
			}
		}
	}
	if chunks != 1 || completions != 1 {
		t.Fatalf("%d chunk and %d completion records; want 1 and 1", chunks, completions)
	}
}

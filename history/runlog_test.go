package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// runLogEnv is an attached session with a RunLog, and what was stored.
func runLogEnv(t *testing.T) (*env, *Attachment, *RunLog, *int) {
	t.Helper()
	e := newEnv(t)
	a, code := e.store.Create("s1", Selection{Provider: "fixture", Model: "fixture-model"})
	if code != "" {
		t.Fatal(code)
	}
	t.Cleanup(func() { a.Close() })
	if _, err := a.AppendInput(Record{Type: TypeInput, RunID: "r1", MessageID: "m0", Text: "go"}); err != nil {
		t.Fatal(err)
	}
	degraded := 0
	l := NewRunLog(a, "r1", func() error { degraded++; return errors.New("reported") })
	return e, a, l, &degraded
}

// stored reads the session file's records of type typ.
func stored(t *testing.T, e *env, typ Type) []Record {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.dir, "s1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []Record
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var r Record
		if err := parseLine([]byte(line), &r); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		if r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}

func joinText(recs []Record) string {
	var b strings.Builder
	for _, r := range recs {
		b.WriteString(r.Text)
	}
	return b.String()
}

// TestRunLogStoresWhileStreaming: a reply is stored as it streams: after
// any text, what is not yet stored is under one chunk (a process that dies
// loses at most that and the chunk being written); the chunks are a
// prefix of the reply, each valid UTF-8 (a rune across the boundary waits
// for the next chunk); at the end the chunks join to the reply and the
// completion record holds no second copy. A short reply is one record.
func TestRunLogStoresWhileStreaming(t *testing.T) {
	e, _, l, degraded := runLogEnv(t)
	reply := strings.Repeat("wörd 漢字 ", 3000) // 39,000 bytes, runes across every boundary
	l.SegmentStart("m1")
	fed := 0
	for _, piece := range strings.SplitAfter(reply, " ") {
		if err := l.Text("m1", piece); err != nil {
			t.Fatal(err)
		}
		fed += len(piece)
		if err := l.Settle(); err != nil {
			t.Fatal(err)
		}
		if fed%997 == 0 || fed == len(reply) {
			chunks := joinText(stored(t, e, TypeAssistantChunk))
			if fed-len(chunks) >= ChunkBytes || !strings.HasPrefix(reply, chunks) {
				t.Fatalf("after %d bytes %d are stored (want over %d, a prefix)", fed, len(chunks), fed-ChunkBytes)
			}
		}
	}
	if err := l.SegmentEnd("m1", reply); err != nil {
		t.Fatal(err)
	}
	if id, text, ok, err := l.Complete(false); !ok || err != nil || id != "m1" || text != reply {
		t.Fatalf("Complete = %q, %d bytes, %v, %v", id, len(text), ok, err)
	}
	chunks := stored(t, e, TypeAssistantChunk)
	for _, c := range chunks {
		if !utf8.ValidString(c.Text) || c.MessageID != "m1" || c.RunID != "r1" {
			t.Fatalf("chunk %+v", c)
		}
	}
	done := stored(t, e, TypeAssistant)
	if joinText(chunks) != reply || len(chunks) != 3 || len(done) != 1 || done[0].HasText || done[0].Partial {
		t.Fatalf("%d chunks joining to %d bytes, completion %+v", len(chunks), len(joinText(chunks)), done)
	}
	// A short reply: no chunk, its completion holds it, partial at a
	// failed run's end.
	l.SegmentStart("m2")
	_ = l.Text("m2", "short")
	_ = l.SegmentEnd("m2", "short")
	if _, _, ok, _ := l.Complete(true); !ok {
		t.Fatal("short reply not completed")
	}
	done = stored(t, e, TypeAssistant)
	if len(stored(t, e, TypeAssistantChunk)) != 3 || len(done) != 2 || done[1].Text != "short" || !done[1].Partial {
		t.Fatalf("short reply: %+v", done)
	}
	// An empty segment stores nothing; Complete twice stores once.
	l.SegmentStart("m3")
	_ = l.SegmentEnd("m3", "")
	if _, _, ok, _ := l.Complete(false); ok {
		t.Fatal("an empty segment completed")
	}
	if _, _, ok, _ := l.Complete(false); ok || len(stored(t, e, TypeAssistant)) != 2 || *degraded != 0 || l.Degraded() {
		t.Fatal("a second Complete stored again, or the log degraded")
	}
}

// TestRunLogMark: a segment with text and no record gets one empty marker
// chunk before what follows (a diagnostic), open or ended, once.
func TestRunLogMark(t *testing.T) {
	e, _, l, _ := runLogEnv(t)
	_ = l.Mark() // nothing open: nothing
	l.SegmentStart("m1")
	_ = l.Mark() // no text yet: nothing
	_ = l.Text("m1", "half")
	_ = l.Mark()
	_ = l.Mark()
	_ = l.SegmentEnd("m1", "half")
	_ = l.Mark() // ended, already marked
	l.SegmentStart("m2")
	_ = l.Text("m2", "other")
	_ = l.SegmentEnd("m2", "other")
	_ = l.Mark() // ended, not marked
	got := stored(t, e, TypeAssistantChunk)
	if len(got) != 2 || got[0].MessageID != "m1" || got[1].MessageID != "m2" || got[0].Text != "" || got[1].Text != "" {
		t.Fatalf("markers %+v", got)
	}
}

// TestRunLogDegrades: the first failed append (the lease taken away)
// degrades the log and is reported once; nothing is appended after it.
func TestRunLogDegrades(t *testing.T) {
	e, a, l, degraded := runLogEnv(t)
	if err := l.Append(Record{Type: TypeTaskScope, Ceiling: "read"}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if err := l.Append(Record{Type: TypeTaskScope, Ceiling: "read"}); err == nil || *degraded != 1 || !l.Degraded() {
		t.Fatalf("after the failure: degraded %d, %v", *degraded, l.Degraded())
	}
	l.SegmentStart("m1")
	if err := l.Text("m1", strings.Repeat("x", 3*ChunkBytes)); err != nil {
		t.Fatal(err)
	}
	if err := l.Settle(); err != nil || *degraded != 1 {
		t.Fatalf("later appends: %v, reported %d times", err, *degraded)
	}
	if n := len(stored(t, e, TypeTaskScope)); n != 1 {
		t.Fatalf("%d task scopes stored", n)
	}
}

// TestRunLogChunkWaitsForThePreviousOne: while a chunk's append is still
// running, the next chunk waits for it (one append in flight, records in
// order), and the text in between goes on.
func TestRunLogChunkWaitsForThePreviousOne(t *testing.T) {
	e, _, l, degraded := runLogEnv(t)
	release := make(chan struct{})
	var stores atomic.Int32
	l.storeGate = func() {
		if stores.Add(1) == 1 {
			<-release // the first chunk's append is slow
		}
	}
	piece := strings.Repeat("abcdefghi ", 10)
	var fed atomic.Int64
	fedAll := make(chan error, 1)
	l.SegmentStart("m1")
	go func() {
		for range 3 * ChunkBytes / len(piece) {
			if err := l.Text("m1", piece); err != nil {
				fedAll <- err
				return
			}
			fed.Add(int64(len(piece)))
		}
		fedAll <- nil
	}()
	// The first chunk is stored after ChunkBytes; the second must wait for
	// it at 2*ChunkBytes, however long the first takes.
	for fed.Load() < 2*ChunkBytes-int64(len(piece)) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if got := fed.Load(); got > 2*ChunkBytes || stores.Load() != 1 {
		t.Fatalf("fed %d bytes, %d appends started while the first chunk's append runs; want at most %d, 1", got, stores.Load(), 2*ChunkBytes)
	}
	close(release)
	if err := <-fedAll; err != nil {
		t.Fatal(err)
	}
	if err := l.Settle(); err != nil {
		t.Fatal(err)
	}
	if stores.Load() != 2 || *degraded != 0 || len(stored(t, e, TypeAssistantChunk)) != 2 {
		t.Fatalf("%d chunk appends, degraded %d; want 2, 0", stores.Load(), *degraded)
	}
}

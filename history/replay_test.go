package history

import (
	"reflect"
	"strings"
	"testing"
)

// fullReplay folds the whole file from scratch: the definition that the
// incremental log must match.
func fullReplay(t *testing.T, a *Attachment) []Record {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	l := newReplayLog(a.id)
	if code := l.catchUp(a.file, a.size); code != "" {
		t.Fatalf("full replay: %q", code)
	}
	return l.records()
}

// TestReplayIncrementalMatchesFull appends a session of every record kind
// the replay folds (turns, chunks, a chunked completion, an interrupted
// segment, tool calls, a compaction), calling Replay after every append:
// each incremental result must equal a fold of the whole file, and the log
// must read only what was appended since.
func TestReplayIncrementalMatchesFull(t *testing.T) {
	s := NewStore(t.TempDir(), t.TempDir(), fixedNow)
	a, code := s.Create("replay", Selection{Provider: "fixture", Model: "m"})
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	long := strings.Repeat("chunked ", 3000)
	recs := []Record{
		{Type: TypeInput, RunID: "r1", MessageID: "i1", Text: "first"},
		{Type: TypeAssistant, RunID: "r1", MessageID: "m1", Text: "answer one", HasText: true},
		{Type: TypeRunCompleted, RunID: "r1", Outcome: "completed"},
		{Type: TypeInput, RunID: "r2", MessageID: "i2", Text: "second"},
		{Type: TypeAssistantChunk, RunID: "r2", MessageID: "m2", Text: long[:9000]},
		{Type: TypeAssistantChunk, RunID: "r2", MessageID: "m2", Text: long[9000:]},
		{Type: TypeAssistant, RunID: "r2", MessageID: "m2"}, // stored once, in its chunks
		{Type: TypeToolCall, RunID: "r2", CallID: "c1", Name: "shell", Arguments: `{"command":"ls"}`},
		{Type: TypeToolResult, RunID: "r2", CallID: "c1", Name: "shell", Text: "file"},
		{Type: TypeRunCompleted, RunID: "r2", Outcome: "completed"},
		{Type: TypeInput, RunID: "r3", MessageID: "i3", Text: "third"},
		{Type: TypeAssistantChunk, RunID: "r3", MessageID: "m3", Text: "interrupted "},
		{Type: TypeActivity, RunID: "r3", ActivityID: "a1", Kind: "tool", State: "started", Name: "shell"},
		{Type: TypeInput, RunID: "r4", MessageID: "i4", Text: "fourth"},
		{Type: TypeCompaction, RunID: "r4", Text: "summary of before"},
		{Type: TypeAssistant, RunID: "r4", MessageID: "m4", Text: "after", HasText: true, Partial: true},
		{Type: TypeRunCompleted, RunID: "r4", Outcome: "cancelled"},
	}
	for i, rec := range recs {
		if err := appendRecord(a, rec); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		before := a.replay
		var at int64
		if before != nil {
			at = before.at
		}
		got, code := a.Replay()
		if code != "" {
			t.Fatalf("replay after %d: %q", i, code)
		}
		if want := fullReplay(t, a); !reflect.DeepEqual(got, want) {
			t.Fatalf("after record %d (%s): incremental replay\n%+v\nwant\n%+v", i, rec.Type, got, want)
		}
		if before != nil && a.replay != before {
			t.Fatalf("after record %d: the replay log was rebuilt, not extended", i)
		}
		if a.replay.at != a.size {
			t.Fatalf("after record %d: folded %d of %d bytes (from %d)", i, a.replay.at, a.size, at)
		}
	}
	got, _ := a.Replay()
	if len(got) != 3 || got[0].Type != TypeCompaction || got[1].Text != "after" || !got[1].Partial {
		t.Fatalf("final replay %+v; want the compaction, the partial reply, the completion", got)
	}
}

// TestReplayRebuildsAfterOutsideChange: a file changed behind the lease is
// adopted by the next snapshot, and the replay folds it anew.
func TestReplayRebuildsAfterOutsideChange(t *testing.T) {
	s := NewStore(t.TempDir(), t.TempDir(), fixedNow)
	a, _ := s.Create("outside", Selection{Provider: "fixture", Model: "m"})
	defer a.Close()
	if _, err := a.AppendInput(Record{Type: TypeInput, RunID: "r1", MessageID: "i1", Text: "mine"}); err != nil {
		t.Fatal(err)
	}
	if _, code := a.Replay(); code != "" {
		t.Fatal(code)
	}
	// Another writer rewrites the input in place and appends a line
	// (breaking the lease's promise).
	data := make([]byte, a.size)
	if _, err := a.file.ReadAt(data, 0); err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), `"mine"`, `"MINE"`, 1))
	data = AppendRecord(data, &Record{Type: TypeInput, SessionID: "outside", RunID: "r2", MessageID: "i2", Text: "theirs"})
	if _, err := a.file.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if _, code := a.Snapshot(); code != "" {
		t.Fatal(code)
	}
	got, code := a.Replay()
	if code != "" || len(got) != 2 || got[0].Text != "MINE" || got[1].Text != "theirs" {
		t.Fatalf("replay after an outside change = %+v, %q; want both inputs as the file now has them", got, code)
	}
}

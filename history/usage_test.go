package history

import (
	"reflect"
	"testing"
)

// TestUsageRecordsSkipped: usage records change neither the history
// projection (pages) nor the replayed conversation: a session with them
// reads as the same session without them.
func TestUsageRecordsSkipped(t *testing.T) {
	recs := []Record{
		{Type: TypeInput, RunID: "r1", MessageID: "i1", Text: "hello"},
		{Type: TypeAssistant, RunID: "r1", MessageID: "m1", Text: "calling", HasText: true},
		{Type: TypeToolCall, RunID: "r1", CallID: "c1", Name: "shell", Arguments: `{"command":"ls"}`},
		{Type: TypeToolResult, RunID: "r1", CallID: "c1", Text: "file"},
		{Type: TypeAssistant, RunID: "r1", MessageID: "m2", Text: "done", HasText: true},
		{Type: TypeRunCompleted, RunID: "r1", Outcome: "completed"},
	}
	usage := func(in, out int64) Record {
		return Record{Type: TypeUsage, RunID: "r1", Model: "m", InputTokens: in, OutputTokens: out}
	}
	withUsage := append(append(append([]Record{}, recs[:3]...), usage(100, 20)), recs[3:5]...)
	withUsage = append(withUsage, usage(130, 5), recs[5])

	read := func(id string, recs []Record) ([]Record, []entry) {
		s := NewStore(t.TempDir(), t.TempDir(), fixedNow)
		a, code := s.Create(id, Selection{Provider: "fixture", Model: "m"})
		if code != "" {
			t.Fatal(code)
		}
		defer a.Close()
		for _, rec := range recs {
			if err := appendRecord(a, rec); err != nil {
				t.Fatalf("append %s: %v", rec.Type, err)
			}
		}
		replay, code := a.Replay()
		if code != "" {
			t.Fatalf("replay: %q", code)
		}
		entries, complete := allPages(t, a)
		if !complete {
			t.Fatal("the projection is not complete")
		}
		return replay, entries
	}
	wantReplay, wantPage := read("plain", recs)
	gotReplay, gotPage := read("plain", withUsage)
	if !reflect.DeepEqual(gotReplay, wantReplay) {
		t.Fatalf("replay with usage records\n%+v\nwant\n%+v", gotReplay, wantReplay)
	}
	if !reflect.DeepEqual(gotPage, wantPage) || len(wantPage) == 0 {
		t.Fatalf("history with usage records\n%+v\nwant\n%+v", gotPage, wantPage)
	}
}

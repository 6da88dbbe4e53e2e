package history

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// replayString renders a replay as "type:run/message:text[:partial]" items.
func replayString(recs []Record) string {
	var out []string
	for _, r := range recs {
		s := fmt.Sprintf("%s:%s/%s:%s", r.Type, r.RunID, r.MessageID+r.CallID, r.Text)
		if r.Partial {
			s += ":partial"
		}
		out = append(out, s)
	}
	return strings.Join(out, " | ")
}

// TestReplayFold: the provider conversation keeps input, internal input,
// tool calls and results, run completions and one reconciled assistant
// record per segment at its first position (the completion's text, its
// chunks when it has none, chunks after a completion ignored, Partial
// until completed and as the completion says); presentation-only records
// are left out; a compaction restarts it with its summary.
func TestReplayFold(t *testing.T) {
	s := NewStore(t.TempDir(), t.TempDir(), fixedNow)
	a, code := s.Create("fold", Selection{})
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	appendAll := func(recs ...Record) {
		t.Helper()
		for _, r := range recs {
			if err := appendRecord(a, r); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendAll(
		Record{Type: TypeInput, RunID: "r1", MessageID: "u1", Text: "q1"},
		Record{Type: TypeInternalInput, RunID: "r1", Text: "auto"},
		Record{Type: TypeAssistantChunk, RunID: "r1", MessageID: "m1", Text: "draft "},
		Record{Type: TypeReasoningSummary, RunID: "r1", Text: "thinking", ProviderSummary: true},
		Record{Type: TypeAssistantChunk, RunID: "r1", MessageID: "m1", Text: "text"},
		Record{Type: TypeToolCall, RunID: "r1", CallID: "c1", Name: "shell", Arguments: `{"command":"ls"}`},
		Record{Type: TypeActivity, RunID: "r1", ActivityID: "c1", Kind: "tool", State: "completed", Name: "shell"},
		Record{Type: TypeToolResult, RunID: "r1", CallID: "c1", Text: "out"},
		Record{Type: TypeAssistant, RunID: "r1", MessageID: "m1", Text: "reconciled", HasText: true},
		Record{Type: TypeAssistantChunk, RunID: "r1", MessageID: "m1", Text: " late"},
		Record{Type: TypeAssistantChunk, RunID: "r1", MessageID: "m2", Text: "legacy "},
		Record{Type: TypeAssistantChunk, RunID: "r1", MessageID: "m2", Text: "chunks"},
		Record{Type: TypeAssistant, RunID: "r1", MessageID: "m2", Partial: true},
		Record{Type: TypeAssistantChunk, RunID: "r1", MessageID: "m2", Text: " late"},
		Record{Type: TypeDiagnostic, RunID: "r1", Code: "execution_failed"},
		Record{Type: TypeTaskScope, RunID: "r1", Ceiling: "read-only"},
		Record{Type: TypeRunCompleted, RunID: "r1", Outcome: "cancelled"},
		Record{Type: TypeInput, RunID: "r2", MessageID: "u2", Text: "q2"},
		Record{Type: TypeAssistantChunk, RunID: "r2", MessageID: "m3", Text: "never "},
		Record{Type: TypeAssistantChunk, RunID: "r2", MessageID: "m3", Text: "completed"},
	)
	got, code := a.Replay()
	if code != "" {
		t.Fatal(code)
	}
	want := "input:r1/u1:q1 | internal_input:r1/:auto | assistant:r1/m1:reconciled | tool_call:r1/c1: | tool_result:r1/c1:out | " +
		"assistant:r1/m2:legacy chunks:partial | run_completed:r1/: | input:r2/u2:q2 | assistant:r2/m3:never completed:partial"
	if replayString(got) != want {
		t.Fatalf("replay\n%s\nwant\n%s", replayString(got), want)
	}
	if got[3].Arguments != `{"command":"ls"}` || got[3].Name != "shell" {
		t.Fatalf("tool call %+v", got[3])
	}
	// The same segment completed later: the chunks give way to its text.
	appendAll(Record{Type: TypeAssistant, RunID: "r2", MessageID: "m3", Text: "done", HasText: true})
	got, _ = a.Replay()
	if s := replayString(got[len(got)-1:]); s != "assistant:r2/m3:done" {
		t.Fatalf("completed segment: %s", s)
	}
	// A compaction restarts the conversation, segments included: a chunk
	// of an earlier segment opens a new one after it.
	appendAll(
		Record{Type: TypeCompaction, RunID: "r2", Text: "summary"},
		Record{Type: TypeAssistantChunk, RunID: "r2", MessageID: "m3", Text: "again"},
		Record{Type: TypeRunCompleted, RunID: "r2", Outcome: "completed"},
	)
	got, _ = a.Replay()
	if s := replayString(got); s != "compaction:r2/:summary | assistant:r2/m3:again:partial | run_completed:r2/:" {
		t.Fatalf("after compaction: %s", s)
	}
}

// TestReplayReadsOnlyWhatTheAttachmentKnows: Replay folds the lines up to
// the end of the last line the attachment knows of; a line another writer
// appended behind the lease is not in it until a snapshot adopts the file.
func TestReplayReadsOnlyWhatTheAttachmentKnows(t *testing.T) {
	s := NewStore(t.TempDir(), t.TempDir(), fixedNow)
	a, code := s.Create("known", Selection{})
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	if _, err := a.AppendInput(Record{Type: TypeInput, RunID: "r1", MessageID: "u1", Text: "one"}); err != nil {
		t.Fatal(err)
	}
	if _, code := a.Replay(); code != "" {
		t.Fatal(code)
	}
	if _, err := a.Append(Record{Type: TypeRunCompleted, RunID: "r1", Outcome: "completed"}, false); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(AppendRecord(nil, &Record{Type: TypeInput, SessionID: "known", RunID: "r2", MessageID: "u2", Text: "theirs"}))
	f.Close()
	got, code := a.Replay()
	if want := "input:r1/u1:one | run_completed:r1/:"; code != "" || replayString(got) != want {
		t.Fatalf("replay = %s, %q; want %s", replayString(got), code, want)
	}
	if _, code := a.Snapshot(); code != "" {
		t.Fatal(code)
	}
	got, _ = a.Replay()
	if want := "input:r1/u1:one | run_completed:r1/: | input:r2/u2:theirs"; replayString(got) != want {
		t.Fatalf("after the snapshot adopted the file: %s; want %s", replayString(got), want)
	}
}

// TestReplayLineBudget: the replay counts lines from the start of the file
// across incremental folds: line 100,000 still replays, line 100,001 is
// history_limit.
func TestReplayLineBudget(t *testing.T) {
	e := newEnv(t)
	writeSessionOfSize(t, e, "s", protocol.StoredHistoryLines-1, 0, "")
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	for _, want := range []protocol.Code{"", "", protocol.CodeHistoryLimit} {
		if _, code := a.Replay(); code != want {
			t.Fatalf("replay at %d lines: %q; want %q", a.size, code, want)
		}
		if _, err := a.Append(Record{Type: TypeTaskScope, Ceiling: "w"}, false); err != nil {
			t.Fatal(err)
		}
	}
}

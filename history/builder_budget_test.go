package history

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// retained is the text a builder holds: every message's text plus its
// chunks not yet replaced by a completion.
func retained(b *Builder) int {
	n := 0
	for _, m := range b.msgs {
		n += len(m.text) + len(m.pending)
	}
	return n
}

// TestBuilderCountsRetainedText: the builder's budget counts exactly the
// text it retains, through every fold that adds, replaces or drops text
// (chunks, completions with and without text, a completion repeated,
// chunks after a completion, replaced reasoning summaries, activity
// updates, a late "started", interrupted turns). So text that was replaced
// never counts against the 8 MiB snapshot budget, and retained text always
// does.
func TestBuilderCountsRetainedText(t *testing.T) {
	b := NewBuilder(Detail{})
	big := strings.Repeat("z", 1<<20)
	recs := []Record{
		{Type: TypeInput, RunID: "r1", MessageID: "u1", Text: "question"},
		{Type: TypeAssistantChunk, RunID: "r1", MessageID: "a1", Text: "chunk one "},
		{Type: TypeAssistantChunk, RunID: "r1", MessageID: "a1", Text: "chunk two"},
		{Type: TypeAssistant, RunID: "r1", MessageID: "a1", Text: "final", HasText: true},
		{Type: TypeAssistantChunk, RunID: "r1", MessageID: "a1", Text: "late chunk, ignored"},
		{Type: TypeAssistant, RunID: "r1", MessageID: "a1", Text: "final again, longer", HasText: true},
		{Type: TypeAssistantChunk, RunID: "r1", MessageID: "a2", Text: "legacy "},
		{Type: TypeAssistantChunk, RunID: "r1", MessageID: "a2", Text: "chunks"},
		{Type: TypeAssistant, RunID: "r1", MessageID: "a2"},
		{Type: TypeAssistant, RunID: "r1", MessageID: "a3", Text: "no chunks", HasText: true},
		{Type: TypeReasoningSummary, RunID: "r1", ID: "s1", Text: "first summary", ProviderSummary: true},
		{Type: TypeReasoningSummary, RunID: "r1", ID: "s1", Text: "second", ProviderSummary: true},
		{Type: TypeReasoningSummary, RunID: "r1", ID: "s1", Text: "unverified, ignored"},
		{Type: TypeReasoningSummary, RunID: "r1", Text: "anonymous", ProviderSummary: true},
		{Type: TypeActivity, RunID: "r1", ActivityID: "t1", Kind: "tool", State: "started", Name: "shell", Summary: "ls"},
		{Type: TypeActivity, RunID: "r1", ActivityID: "t1", Kind: "tool", State: "completed", Name: "shell", Summary: "a much longer summary"},
		{Type: TypeActivity, RunID: "r1", ActivityID: "t1", Kind: "tool", State: "started", Name: "shell"},
		{Type: TypeActivity, RunID: "r1", ActivityID: "t2", Kind: "subagent", State: "started"},
		{Type: TypeCompaction, RunID: "r1", Text: "compacted"},
		{Type: TypeDiagnostic, RunID: "r1", Code: "execution_failed", Summary: "why"},
		{Type: TypeRunCompleted, RunID: "r1", Outcome: "completed"},
		{Type: TypeInput, RunID: "r2", MessageID: "u2", Text: "open turn"},
		{Type: TypeInput, RunID: "r3", MessageID: "u3", Text: "closes the open one as interrupted"},
	}
	// Replaced text never accumulates: twenty 1 MiB summaries of one ID
	// and twenty 1 MiB completions of one segment retain 2 MiB.
	for range 20 {
		recs = append(recs,
			Record{Type: TypeReasoningSummary, RunID: "r3", ID: "big", Text: big, ProviderSummary: true},
			Record{Type: TypeAssistant, RunID: "r3", MessageID: "a9", Text: big, HasText: true})
	}
	for i := range recs {
		r := recs[i]
		r.SessionID = "s"
		if !b.Add(&r) {
			t.Fatalf("record %d (%s): over budget with %d bytes retained", i, r.Type, retained(b))
		}
		if b.textBytes != retained(b) {
			t.Fatalf("record %d (%s): counts %d bytes; %d retained", i, r.Type, b.textBytes, retained(b))
		}
	}
	// Retained text one byte past the budget is refused as soon as it is
	// added; exactly at the budget it is not.
	for _, over := range []int{0, 1} {
		b := NewBuilder(Detail{})
		r := Record{Type: TypeCompaction, SessionID: "s", Text: strings.Repeat("c", protocol.HistorySnapshotBytes-len("q")+over)}
		if !b.Add(&Record{Type: TypeInput, SessionID: "s", MessageID: "u", Text: "q"}) {
			t.Fatal("one input over budget")
		}
		if got := b.Add(&r); got != (over == 0) {
			t.Fatalf("%d bytes retained: Add = %v", b.textBytes, got)
		}
	}
}

package history

import (
	"fmt"
	"strings"
	"testing"
)

// project folds records of session "s" and renders every entry as
// "kind:text:partial", joined by " | ".
func project(t *testing.T, recs ...Record) (string, bool) {
	t.Helper()
	p := build(t, Detail{}, recs...)
	var out []string
	for _, pt := range p.parts {
		m := p.msgs[pt.msg]
		out = append(out, fmt.Sprintf("%s:%s:%v", m.kind, pt.text, m.partial))
	}
	return strings.Join(out, " | "), p.Complete()
}

// build folds records of session "s" into the projection of detail d.
func build(t *testing.T, d Detail, recs ...Record) *Projection {
	t.Helper()
	b := NewBuilder(d)
	for _, r := range recs {
		r.SessionID = "s"
		if !b.Add(&r) {
			t.Fatal("over budget")
		}
	}
	p, code := b.Finish("s", "v1-x", 1, false)
	if code != "" {
		t.Fatal(code)
	}
	return p
}

// TestTurnsWithoutRunID: an older input record without run_id is closed by
// the next run_completed, whatever its run; a turn with a run is closed only
// by its own.
func TestTurnsWithoutRunID(t *testing.T) {
	got, complete := project(t,
		Record{Type: TypeInput, MessageID: "u1", Text: "old"},
		Record{Type: TypeRunCompleted, RunID: "any", Outcome: "completed"},
		Record{Type: TypeInput, MessageID: "u2", Text: "old, never completed"},
		Record{Type: TypeInput, RunID: "r3", MessageID: "u3", Text: "new"},
		Record{Type: TypeRunCompleted, RunID: "r3", Outcome: "completed"},
	)
	want := "user:old:false | user:old, never completed:false | diagnostic:" + InterruptedText + ":true | user:new:false"
	if got != want || complete {
		t.Fatalf("got %s complete=%v\nwant %s complete=false", got, complete, want)
	}
	if _, complete := project(t,
		Record{Type: TypeInput, MessageID: "u1", Text: "old"},
		Record{Type: TypeRunCompleted, RunID: "any", Outcome: "completed"},
	); !complete {
		t.Fatal("an input without run_id is not closed by the next run_completed")
	}
}

// TestActivityStates: an activity entry stays at its first position; its
// text and partial flag follow the latest state, except that a late
// "started" never undoes a recorded end; with no name the kind names it.
func TestActivityStates(t *testing.T) {
	got, _ := project(t,
		Record{Type: TypeInput, RunID: "r", MessageID: "u", Text: "q"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "t1", Kind: "tool", State: "started", Name: "shell"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "t2", Kind: "subagent", State: "started"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "t1", Kind: "tool", State: "failed", Name: "shell", Summary: "exit 2"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "t1", Kind: "tool", State: "started", Name: "shell", Summary: "late"},
		Record{Type: TypeActivity, RunID: "r", ActivityID: "t2", Kind: "subagent", State: "started", Summary: "still going"},
		Record{Type: TypeActivity, RunID: "other", ActivityID: "t1", Kind: "compaction", State: "completed"},
		Record{Type: TypeRunCompleted, RunID: "r", Outcome: "completed"},
	)
	want := "user:q:false | activity:shell failed: exit 2:false | activity:subagent started: still going:true | activity:compaction completed:false"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestSynthesizedMessageIDs: a stored message ID is kept the first time it
// appears; entries without one, and later uses of a stored one, get
// "<kind>.<n>", n counting 1, 2, 3 ... through the projection.
func TestSynthesizedMessageIDs(t *testing.T) {
	b := NewBuilder(Detail{})
	for _, r := range []Record{
		{Type: TypeInput, RunID: "r1", MessageID: "m", Text: "q"},
		{Type: TypeReasoningSummary, RunID: "r1", Text: "why", ProviderSummary: true},
		{Type: TypeAssistant, RunID: "r1", MessageID: "m", Text: "a", HasText: true},
		{Type: TypeActivity, RunID: "r1", ActivityID: "t", Kind: "tool", State: "completed"},
		{Type: TypeRunCompleted, RunID: "r1", Outcome: "completed"},
		{Type: TypeInput, RunID: "r2", MessageID: "m", Text: "again"},
	} {
		r.SessionID = "s"
		b.Add(&r)
	}
	p, code := b.Finish("s", "v1-x", 1, false)
	if code != "" {
		t.Fatal(code)
	}
	var got []string
	for _, m := range p.msgs {
		got = append(got, m.id)
	}
	want := "m reasoning_summary.1 assistant.2 activity.3 user.4 diagnostic.5"
	if strings.Join(got, " ") != want {
		t.Fatalf("IDs %q; want %q", got, want)
	}
}

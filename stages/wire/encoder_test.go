package wire

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// encoderEvents are events of every name, with IDs that repeat, change
// one at a time, and need escaping.
func encoderEvents() []Event {
	s1, s2 := "0f8fad5b-d9cb-469f-a165-70867728950e", "sess\"ion\\2"
	r1, r2 := "7c9e6679-7425-40de-944b-e07fc1f90ae7", "run-2\u00e9"
	return []Event{
		{Name: protocol.EventInputPersisted, SessionID: s1, RunID: r1, MessageID: "in-1", Revision: "v1-ab"},
		{Name: protocol.EventMessageDelta, SessionID: s1, RunID: r1, MessageID: "m-1", Part: 0, Text: "hello"},
		{Name: protocol.EventMessageDelta, SessionID: s1, RunID: r1, MessageID: "m-1", Part: 1, Text: "wor\"ld\n"},
		{Name: protocol.EventMessageDelta, SessionID: s1, RunID: r1, MessageID: "m-2", Part: 0, Text: ""},
		{Name: protocol.EventMessageReconcile, SessionID: s1, RunID: r1, MessageID: "m-2", Part: 3, Text: "x", LastPart: true, Partial: true},
		{Name: protocol.EventMessageDelta, SessionID: s2, RunID: r1, MessageID: "m-2", Part: 7, Text: "y"},
		{Name: protocol.EventMessageDelta, SessionID: s2, RunID: r2, MessageID: "m-2", Part: 8, Text: "z"},
		{Name: protocol.EventActivity, SessionID: s2, RunID: r2, MessageID: "m-2", ActivityID: "a-1", Kind: "tool", State: "started", ToolName: "shell", Summary: "ls"},
		{Name: protocol.EventApprovalRequested, SessionID: s2, RunID: r2, ApprovalID: "ap-1", Summary: "rm", ExpiresInMs: 60000},
		{Name: protocol.EventDiagnostic, SessionID: s2, RunID: r2, Code: "persistence_failed", Summary: "s"},
		{Name: protocol.EventRunFinished, SessionID: s2, RunID: r2, Outcome: "completed", Persistence: "durable", Revision: "v2-cd", HasRevision: true},
		{Name: protocol.EventRunFinished, SessionID: s1, RunID: r1, Outcome: "failed", Persistence: "degraded", ErrorCode: protocol.CodeContentLimit},
		{Name: protocol.EventMessageDelta, SessionID: s1, RunID: r1, MessageID: "m-1", Part: 2, Text: "again"},
	}
}

// The encoder writes exactly AppendEvent's bytes, whatever the order of the
// events, also when an ID has the same bytes in a different string.
func TestEventEncoderMatchesAppendEvent(t *testing.T) {
	const inst = "5f2b1c8e-6d7a-4b0e-9c3d-2a1f0e9d8c7b"
	events := encoderEvents()
	rng := rand.New(rand.NewPCG(1, 2))
	enc := NewEventEncoder(inst)
	var got, want []byte
	for i := range 2000 {
		e := events[rng.IntN(len(events))]
		if rng.IntN(4) == 0 {
			// Same bytes, other backing arrays.
			e.SessionID, e.RunID, e.MessageID = strings.Clone(e.SessionID), strings.Clone(e.RunID), strings.Clone(e.MessageID)
		}
		seq := uint64(i + 1)
		got = enc.Append(got[:0], seq, &e)
		want = AppendEvent(want[:0], inst, seq, &e)
		if !bytes.Equal(got, want) {
			t.Fatalf("event %d (%s):\n got %s\nwant %s", i, e.Name, got, want)
		}
	}
}

// A change in any one of the cached strings is seen: the name, either ID,
// or the message ID of the events that lead with it.
func TestEventEncoderSeesEachChange(t *testing.T) {
	const inst = "i"
	base := Event{Name: protocol.EventMessageDelta, SessionID: "s1", RunID: "r1", MessageID: "m1", Text: "t"}
	changes := map[string]func(e *Event){
		"name":       func(e *Event) { e.Name = protocol.EventMessageReconcile },
		"session_id": func(e *Event) { e.SessionID = "s2" },
		"run_id":     func(e *Event) { e.RunID = "r2" },
		"message_id": func(e *Event) { e.MessageID = "m2" },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			enc := NewEventEncoder(inst)
			e := base
			enc.Append(nil, 1, &e)
			change(&e)
			got, want := enc.Append(nil, 2, &e), AppendEvent(nil, inst, 2, &e)
			if !bytes.Equal(got, want) {
				t.Fatalf("after a change of %s:\n got %s\nwant %s", name, got, want)
			}
		})
	}
}

func TestEventEncoderNoAllocs(t *testing.T) {
	e := encoderEvents()[1]
	enc := NewEventEncoder("5f2b1c8e-6d7a-4b0e-9c3d-2a1f0e9d8c7b")
	buf := make([]byte, 0, 1024)
	buf = enc.Append(buf[:0], 1, &e)
	if n := testing.AllocsPerRun(100, func() { buf = enc.Append(buf[:0], 2, &e) }); n != 0 {
		t.Fatalf("Append allocates %v times per frame; want 0", n)
	}
}

// BenchmarkEventEncoderDelta is BenchmarkAppendDeltaEvent's frame through
// the instance's encoder (the writer's path).
func BenchmarkEventEncoderDelta(b *testing.B) {
	e := Event{Name: protocol.EventMessageDelta, SessionID: "0f8fad5b-d9cb-469f-a165-70867728950e", RunID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", MessageID: "m-0001", Part: 1234, Text: strings.Repeat("abcdefghij", 10)}
	enc := NewEventEncoder("5f2b1c8e-6d7a-4b0e-9c3d-2a1f0e9d8c7b")
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = enc.Append(buf[:0], 123456, &e)
	}
	b.SetBytes(int64(len(buf)))
}

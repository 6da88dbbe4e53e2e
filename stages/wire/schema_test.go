package wire

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/protocol/schemacheck"
)

// TestFramesMatchSchema encodes every event and both kinds of response with
// the encoders the writer uses and validates them against the published
// schema (protocol/schema.json), and checks that a field the schema does not
// know fails: the encoders and the schema cannot drift apart unnoticed.
func TestFramesMatchSchema(t *testing.T) {
	const (
		inst = "0b8a4d2e-7f11-4c3a-9d55-1e2f3a4b5c6d"
		run  = "4f1c2b3a-5d6e-4f70-8192-a3b4c5d6e7f8"
	)
	base := Event{SessionID: "s-1", RunID: run}
	with := func(name string, f func(*Event)) Event {
		e := base
		e.Name = name
		f(&e)
		return e
	}
	events := []Event{
		with(protocol.EventInputPersisted, func(e *Event) { e.MessageID, e.Revision = "m1", "v2" }),
		with(protocol.EventMessageDelta, func(e *Event) { e.MessageID, e.Part, e.Text = "m2", 3, "Hel\"lo\n" }),
		with(protocol.EventMessageReconcile, func(e *Event) {
			e.MessageID, e.Part, e.Text, e.LastPart, e.Partial = "m2", 0, strings.Repeat("é", protocol.LiveChunkBytes/2), true, true
		}),
		with(protocol.EventActivity, func(e *Event) {
			e.ActivityID, e.Kind, e.State, e.ToolName, e.Summary = "a1", "tool", "failed", "mcp__srv__tool", "denied"
		}),
		with(protocol.EventApprovalRequested, func(e *Event) {
			e.ApprovalID, e.Summary, e.ExpiresInMs = run, "shell: echo hi", int64(protocol.ApprovalExpiry.Milliseconds())
		}),
		with(protocol.EventDiagnostic, func(e *Event) { e.Code, e.Summary = string(protocol.CodePersistenceFailed), "x" }),
		with(protocol.EventRunFinished, func(e *Event) {
			e.Outcome, e.Persistence = "completed", "durable"
			e.HasRevision, e.Revision = true, "v3"
		}),
		with(protocol.EventRunFinished, func(e *Event) {
			e.Outcome, e.Persistence, e.ErrorCode = "failed", "not_started", protocol.CodePersistenceFailed
		}),
		with(protocol.EventUsage, func(e *Event) {
			e.InputTokens, e.OutputTokens, e.CachedInputTokens, e.ReasoningTokens, e.ContextWindow = 1200, 80, 1024, 16, 400_000
		}),
		with(protocol.EventUsage, func(e *Event) { e.InputTokens = 3 }), // context window unknown: null
	}
	if len(events) < len(protocol.Events) {
		t.Fatal("an event of version 1 is not encoded here")
	}
	for i, e := range events {
		frame := AppendEvent(nil, inst, uint64(i+1), &e)
		if err := schemacheck.ValidateRoot(frame); err != nil {
			t.Errorf("%s: %s\n%v", e.Name, frame, err)
		}
		planted := strings.Replace(string(frame), `"run_id"`, `"extra":1,"run_id"`, 1)
		if schemacheck.Validate([]byte(planted)) == nil {
			t.Errorf("%s: the schema accepts an unknown data field: %s", e.Name, planted)
		}
	}
	for _, code := range protocol.Codes {
		for _, r := range []Response{{ID: "r1", Error: code}, {NullID: true, Error: code}} {
			frame := AppendResponse(nil, inst, 1, &r)
			if err := schemacheck.ValidateRoot(frame); err != nil {
				t.Errorf("%s: %s\n%v", code, frame, err)
			}
		}
	}
	frame := AppendResponse(nil, inst, 1, &Response{ID: "r1", Result: []byte(`{"recorded":true}`)})
	if err := schemacheck.ValidateRoot(frame); err != nil {
		t.Errorf("%s\n%v", frame, err)
	}
}

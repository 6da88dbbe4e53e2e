package dispatch

import (
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// TestDuplicateIDBeforeValidation: the ledger is checked before the
// validation verdict, so a reused ID on a frame that fails validation is
// answered duplicate_id, never the frame's own error, and a rejected frame
// still spends its ID (docs/protocol.md, "Request IDs": "Duplicate IDs get
// duplicate_id and never reexecute work").
func TestDuplicateIDBeforeValidation(t *testing.T) {
	const noParams = `{"protocol":"magi-code.local-agent","version":1,"id":"r1","method":"status"}`
	const extraMember = `{"protocol":"magi-code.local-agent","version":1,"id":"r1","method":"status","params":{},"x":1}`
	tests := []struct {
		name  string
		steps []step
	}{
		{"valid frame, then the same ID on invalid frames", []step{
			{line("r1", "status", `{}`), want("respond r1 error=not_initialized")},
			{noParams, want("respond r1 error=duplicate_id")},
			{extraMember, want("respond r1 error=duplicate_id")},
			{line("r1", "status", `[]`), want("respond r1 error=duplicate_id")},
			{line("r1", "no.such.method", `{}`), want("respond r1 error=duplicate_id")},
		}},
		{"invalid frame spends its ID", []step{
			{noParams, want("respond r1 error=invalid_request")},
			{line("r1", "status", `{}`), want("respond r1 error=duplicate_id")},
			{extraMember, want("respond r1 error=duplicate_id")},
		}},
		{"after initialization, an invalid frame reusing a pending op's ID", seq(ready, []step{
			{line("c1", "session.create", `{}`), want("start_op c1 create <nil>")},
			{`{"protocol":"magi-code.local-agent","version":1,"id":"c1","method":"session.create","params":{"x":1}}`, want("respond c1 error=duplicate_id")},
			{`{"protocol":"magi-code.local-agent","version":1,"id":"i1","method":"initialize"}`, want("respond i1 error=duplicate_id")},
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stepAll(t, NewMachine(counterIDs()), tt.steps)
		})
	}
	// The invalid frames above really fail validation on their own.
	for _, l := range []string{noParams, extraMember} {
		if ev := toEvent(l).(Request); ev.Code == "" || ev.Code == protocol.CodeDuplicateID {
			t.Fatalf("Parse(%q) = %q; want a validation error", l, ev.Code)
		}
	}
}

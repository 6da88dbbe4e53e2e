package wire

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// TestEventDataFieldValues decodes each event's data and checks every
// field of docs/protocol.md's event table under its own name, with the
// value set on the Event (the schema test checks shape, not values: two
// swapped fields of one type would pass it).
func TestEventDataFieldValues(t *testing.T) {
	base := map[string]any{"session_id": "s-1", "run_id": "r-1"}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		e    Event
		want map[string]any
	}{
		{Event{Name: protocol.EventInputPersisted, MessageID: "m1", Revision: "v2"},
			with(map[string]any{"message_id": "m1", "durable": true, "revision": "v2"})},
		{Event{Name: protocol.EventMessageDelta, MessageID: "m2", Part: 7, Text: "t\"x"},
			with(map[string]any{"message_id": "m2", "part": 7.0, "text": "t\"x"})},
		{Event{Name: protocol.EventMessageReconcile, MessageID: "m3", Part: 2, Text: "whole", LastPart: true, Partial: false},
			with(map[string]any{"message_id": "m3", "part": 2.0, "text": "whole", "last_part": true, "partial": false})},
		{Event{Name: protocol.EventMessageReconcile, MessageID: "m3", Part: 0, Text: "cut", LastPart: false, Partial: true},
			with(map[string]any{"message_id": "m3", "part": 0.0, "text": "cut", "last_part": false, "partial": true})},
		{Event{Name: protocol.EventActivity, ActivityID: "a1", Kind: "subagent", State: "completed", ToolName: "explore", Summary: "sum"},
			with(map[string]any{"activity_id": "a1", "kind": "subagent", "state": "completed", "name": "explore", "summary": "sum"})},
		{Event{Name: protocol.EventApprovalRequested, ApprovalID: "ap", Summary: "shell: ls", ExpiresInMs: 59999},
			with(map[string]any{"approval_id": "ap", "summary": "shell: ls", "expires_in_ms": 59999.0})},
		{Event{Name: protocol.EventDiagnostic, Code: "hook_failed", Summary: "stop hook failed"},
			with(map[string]any{"code": "hook_failed", "summary": "stop hook failed"})},
		{Event{Name: protocol.EventRunFinished, Outcome: "completed", Persistence: "durable", HasRevision: true, Revision: "v9"},
			with(map[string]any{"outcome": "completed", "persistence": "durable", "revision": "v9", "error_code": nil})},
		// Revision set but HasRevision false: null, as for a run that
		// cannot name a revision.
		{Event{Name: protocol.EventRunFinished, Outcome: "failed", Persistence: "degraded", Revision: "ignored", ErrorCode: protocol.CodeOutputUnavailable},
			with(map[string]any{"outcome": "failed", "persistence": "degraded", "revision": nil, "error_code": "output_unavailable"})},
	}
	for _, tt := range tests {
		tt.e.SessionID, tt.e.RunID = "s-1", "r-1"
		b := AppendEventData(nil, &tt.e)
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v: %s", tt.e.Name, err, b)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s data = %s\nwant %v", tt.e.Name, b, tt.want)
		}
	}
}

// TestAppendResponseResultAndError: a response carries exactly one of
// result and error, with the request's id.
func TestAppendResponseResultAndError(t *testing.T) {
	tests := []struct {
		r    Response
		want map[string]any
	}{
		{Response{ID: "q1", Result: []byte(`{"ok":true}`)}, map[string]any{"id": "q1", "result": map[string]any{"ok": true}}},
		{Response{ID: "q2", Error: protocol.CodeDuplicateID}, map[string]any{"id": "q2", "error": map[string]any{"code": "duplicate_id"}}},
		{Response{NullID: true, ID: "ignored", Error: protocol.CodeInvalidRequest}, map[string]any{"id": nil, "error": map[string]any{"code": "invalid_request"}}},
	}
	for _, tt := range tests {
		b := AppendResponse(nil, "inst", 5, &tt.r)
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		for _, k := range []string{"protocol", "version", "type", "instance_id", "seq"} {
			delete(got, k)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("response = %s\nwant %v", b, tt.want)
		}
	}
}

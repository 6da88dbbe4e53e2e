package wire

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
)

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\", "\x00\x1f\n\r\t", "😀漢", "bad\xffutf8", "\u2028"} {
		got := jsonenc.AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("jsonenc.AppendString(%q) = %s: invalid JSON: %v", s, got, err)
		}
		want := strings.ToValidUTF8(s, "\ufffd")
		if back != want {
			t.Fatalf("jsonenc.AppendString(%q) decodes to %q; want %q", s, back, want)
		}
		if n := jsonenc.EscapedLen(s); n != len(got)-2 {
			t.Fatalf("jsonenc.EscapedLen(%q) = %d; want %d", s, n, len(got)-2)
		}
	}
}

func TestAppendEventIsExactJSON(t *testing.T) {
	events := []Event{
		{Name: protocol.EventMessageDelta, SessionID: "s", RunID: "r", MessageID: "m", Part: 3, Text: "hi\n"},
		{Name: protocol.EventRunFinished, SessionID: "s", RunID: "r", Outcome: "completed", Persistence: "durable", Revision: "v1", HasRevision: true},
		{Name: protocol.EventRunFinished, SessionID: "s", RunID: "r", Outcome: "failed", Persistence: "not_started", ErrorCode: protocol.CodePersistenceFailed},
		{Name: protocol.EventActivity, SessionID: "s", RunID: "r", ActivityID: "a", Kind: "tool", State: "started", ToolName: "shell", Summary: "x"},
		{Name: protocol.EventApprovalRequested, SessionID: "s", RunID: "r", ApprovalID: "a", Summary: "x", ExpiresInMs: 60000},
		{Name: protocol.EventDiagnostic, SessionID: "s", RunID: "r", Code: "c", Summary: "x"},
		{Name: protocol.EventInputPersisted, SessionID: "s", RunID: "r", MessageID: "m", Revision: "v"},
		{Name: protocol.EventMessageReconcile, SessionID: "s", RunID: "r", MessageID: "m", Text: "t", LastPart: true},
	}
	for _, e := range events {
		b := AppendEvent(nil, "inst", 7, &e)
		if b[len(b)-1] != '\n' {
			t.Fatalf("%s: no LF", e.Name)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v: %s", e.Name, err, b)
		}
		if len(m) != 7 || m["type"] != "event" || m["seq"] != float64(7) || m["event"] != e.Name {
			t.Fatalf("%s: bad envelope %s", e.Name, b)
		}
	}
}

func TestAppendResponse(t *testing.T) {
	b := AppendResponse(nil, "inst", 1, &Response{NullID: true, Error: protocol.CodeInvalidRequest})
	want := `{"protocol":"magi-code.local-agent","version":1,"type":"response","instance_id":"inst","seq":1,"id":null,"error":{"code":"invalid_request"}}` + "\n"
	if string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
	b = AppendResponse(nil, "inst", 2, &Response{ID: "r1", Result: []byte(`{"state":"stopping"}`)})
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m["id"] != "r1" {
		t.Fatalf("bad response %s", b)
	}
}

func BenchmarkAppendDeltaEvent(b *testing.B) {
	e := Event{Name: protocol.EventMessageDelta, SessionID: "0f8fad5b-d9cb-469f-a165-70867728950e", RunID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", MessageID: "m-0001", Part: 1234, Text: strings.Repeat("abcdefghij", 10)}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendEvent(buf[:0], "5f2b1c8e-6d7a-4b0e-9c3d-2a1f0e9d8c7b", 123456, &e)
	}
	b.SetBytes(int64(len(buf)))
}

package client

import (
	"errors"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

const head = `{"protocol":"magi-code.local-agent","version":1,`

func ev(seq int, e wire.Event) string {
	e.SessionID, e.RunID = "s", "r"
	return string(wire.AppendEvent(nil, fakeInstance, uint64(seq), &e))
}

// TestCheckerFrames feeds each case's lines to one checker: all but the
// last must pass; the last must pass (bad == "") or fail mentioning bad.
func TestCheckerFrames(t *testing.T) {
	delta := wire.Event{Name: protocol.EventMessageDelta, MessageID: "m", Text: "hi"}
	output := wire.Event{Name: protocol.EventActivityOutput, ActivityID: "a", Text: "out", LastPart: true}
	tests := []struct {
		name  string
		lines []string
		bad   string
	}{
		{"response", []string{resp(1, "a")}, ""},
		{"error response", []string{string(wire.AppendResponse(nil, fakeInstance, 1, &wire.Response{NullID: true, Error: protocol.CodeInvalidFrame}))}, ""},
		{"every event", []string{
			ev(1, wire.Event{Name: protocol.EventInputPersisted, MessageID: "m", Revision: "v"}),
			ev(2, delta),
			ev(3, wire.Event{Name: protocol.EventMessageReconcile, MessageID: "m", LastPart: true}),
			ev(4, wire.Event{Name: protocol.EventActivity, ActivityID: "a", Kind: "tool", State: "started", ToolName: "shell"}),
			ev(5, wire.Event{Name: protocol.EventApprovalRequested, ApprovalID: "a", ExpiresInMs: 60000}),
			ev(6, wire.Event{Name: protocol.EventDiagnostic, Code: string(protocol.CodeExecutionFailed)}),
			ev(7, wire.Event{Name: protocol.EventRunFinished, Outcome: "failed", Persistence: "not_started", ErrorCode: protocol.CodeExecutionFailed}),
		}, ""},
		{"seq gap allowed", []string{resp(1, "a"), resp(5, "b")}, ""},
		{"seq starts at 0", []string{resp(0, "a")}, "seq 0"},
		{"seq repeats", []string{resp(1, "a"), resp(1, "b")}, "seq 1 after 1"},
		{"seq decreases", []string{resp(1, "a"), resp(2, "b"), resp(1, "c")}, "seq 1 after 2"},
		{"seq float", []string{head + `"type":"response","instance_id":"` + fakeInstance + `","seq":1.0,"id":"a","result":{}}` + "\n"}, "seq"},
		{"instance changes", []string{resp(1, "a"), strings.Replace(resp(2, "b"), fakeInstance, "0f8fad5b-d9cb-469f-a165-70867728950e", 1)}, "instance_id changed"},
		{"instance not uuid", []string{strings.Replace(resp(1, "a"), fakeInstance, "inst", 1)}, "canonical UUID"},
		{"protocol", []string{strings.Replace(resp(1, "a"), "local-agent", "other", 1)}, "protocol"},
		{"version 1.0", []string{strings.Replace(resp(1, "a"), `"version":1`, `"version":1.0`, 1)}, "version"},
		{"version string", []string{strings.Replace(resp(1, "a"), `"version":1`, `"version":"1"`, 1)}, "version"},
		{"unknown type", []string{strings.Replace(resp(1, "a"), `"response"`, `"notice"`, 1)}, "frame type"},
		{"duplicate field", []string{strings.Replace(resp(1, "a"), `"id":"a"`, `"id":"a","id":"b"`, 1)}, "duplicate"},
		{"unknown field", []string{strings.Replace(resp(1, "a"), `"id":"a"`, `"id":"a","extra":0`, 1)}, "unexpected field"},
		{"result and error", []string{strings.Replace(resp(1, "a"), `"result":{}`, `"result":{},"error":{"code":"busy"}`, 1)}, "unexpected field"},
		{"missing id", []string{strings.Replace(resp(1, "a"), `"id":"a",`, ``, 1)}, "missing field"},
		{"numeric id", []string{strings.Replace(resp(1, "a"), `"id":"a"`, `"id":7`, 1)}, "response id"},
		{"unknown code", []string{strings.Replace(string(wire.AppendResponse(nil, fakeInstance, 1, &wire.Response{ID: "a", Error: protocol.CodeBusy})), "busy", "oops", 1)}, "unknown error code"},
		{"error with message", []string{strings.Replace(string(wire.AppendResponse(nil, fakeInstance, 1, &wire.Response{ID: "a", Error: protocol.CodeBusy})), `"busy"`, `"busy","message":"x"`, 1)}, "unexpected field"},
		{"trailing bytes", []string{strings.Replace(resp(1, "a"), "}\n", "} \n", 1)}, "after the object"},
		{"two objects", []string{strings.TrimSuffix(resp(1, "a"), "\n") + resp(2, "b")}, "after the object"},
		{"leading space", []string{" " + resp(1, "a")}, "object"},
		{"CRLF", []string{strings.Replace(resp(1, "a"), "}\n", "}\r\n", 1)}, "after the object"},
		{"empty line", []string{"\n"}, "object"},
		{"invalid utf-8", []string{strings.Replace(resp(1, "a"), `"id":"a"`, "\"id\":\"\xff\"", 1)}, "UTF-8"},
		{"unknown event", []string{strings.Replace(ev(1, delta), "message.delta", "message.append", 1)}, "unknown event"},
		{"event missing field", []string{strings.Replace(ev(1, delta), `,"part":0`, ``, 1)}, "missing field"},
		{"event extra field", []string{strings.Replace(ev(1, delta), `"text":"hi"`, `"text":"hi","raw":1`, 1)}, "unexpected field"},
		{"bad enum", []string{ev(1, wire.Event{Name: protocol.EventRunFinished, Outcome: "ok", Persistence: "durable"})}, "outcome"},
		{"delta text too long", []string{ev(1, wire.Event{Name: protocol.EventMessageDelta, Text: strings.Repeat("a", protocol.LiveChunkBytes+1)})}, "text of"},
		{"unknown diagnostic code", []string{ev(1, wire.Event{Name: protocol.EventDiagnostic, Code: "hook_failed"})}, "unknown code"},
		{"unknown run.finished error_code", []string{ev(1, wire.Event{Name: protocol.EventRunFinished, Outcome: "failed", Persistence: "durable", ErrorCode: "nope"})}, "unknown error_code"},
		{"summary too long", []string{ev(1, wire.Event{Name: protocol.EventDiagnostic, Code: string(protocol.CodeExecutionFailed), Summary: strings.Repeat("a", protocol.SummaryBytes+1)})}, "summary of"},
		{"required activity.output: its event", []string{ev(1, output)}, ""},
		{"required usage: activity.output is not its event", []string{ev(1, output)}, "unknown event"},
		{"activity.output not required", []string{ev(1, output)}, "unknown event"},
		{"required usage: its event", []string{ev(1, wire.Event{Name: protocol.EventUsage, InputTokens: 3})}, ""},
		{"usage not required", []string{ev(1, wire.Event{Name: protocol.EventUsage, InputTokens: 3})}, "unknown event"},
		{"required activity.output: output text too long", []string{ev(1, wire.Event{Name: protocol.EventActivityOutput, ActivityID: "a", Text: strings.Repeat("a", protocol.LiveChunkBytes+1)})}, "text of"},
		{"required approval.session: session_grant", []string{ev(1, wire.Event{Name: protocol.EventApprovalRequested, ApprovalID: "a", Scoped: true, SessionGrant: true})}, ""},
		{"required approval.session: no session_grant", []string{ev(1, wire.Event{Name: protocol.EventApprovalRequested, ApprovalID: "a"})}, "missing field"},
		{"required approval.session: session_grant not a boolean", []string{strings.Replace(ev(1, wire.Event{Name: protocol.EventApprovalRequested, ApprovalID: "a", Scoped: true}), `"session_grant":false`, `"session_grant":"no"`, 1)}, "not a boolean"},
		{"required approval.request: request", []string{ev(1, wire.Event{Name: protocol.EventApprovalRequested, ApprovalID: "a", Whole: true, Request: "shell: ls", RequestTruncated: true})}, ""},
		{"required approval.request: no request", []string{ev(1, wire.Event{Name: protocol.EventApprovalRequested, ApprovalID: "a"})}, "missing field"},
		{"required approval.request: request not a string", []string{strings.Replace(ev(1, wire.Event{Name: protocol.EventApprovalRequested, ApprovalID: "a", Whole: true}), `"request":""`, `"request":7`, 1)}, "request is not a string"},
		{"required approval.request: request too long", []string{ev(1, wire.Event{Name: protocol.EventApprovalRequested, ApprovalID: "a", Whole: true, Request: strings.Repeat("a", protocol.ApprovalRequestBytes+1)})}, "request is not a string"},
		{"required approval.request: request_truncated not a boolean", []string{strings.Replace(ev(1, wire.Event{Name: protocol.EventApprovalRequested, ApprovalID: "a", Whole: true}), `"request_truncated":false`, `"request_truncated":0`, 1)}, "not a boolean"},
		{"approval.request not required: request", []string{ev(1, wire.Event{Name: protocol.EventApprovalRequested, ApprovalID: "a", Whole: true})}, "unexpected field"},
		{"approval.session not required: session_grant", []string{ev(1, wire.Event{Name: protocol.EventApprovalRequested, ApprovalID: "a", Scoped: true})}, "unexpected field"},
		{"oversize", []string{`{"a":"` + strings.Repeat("a", protocol.MaxOutputFrameBytes) + "\"}\n"}, "exceeds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			chk := checker{required: func(c string) bool { return strings.HasPrefix(tc.name, "required "+c) }}
			for i, line := range tc.lines {
				_, _, err := chk.frame([]byte(line))
				last := i == len(tc.lines)-1
				switch {
				case !last || tc.bad == "":
					if err != nil {
						t.Fatalf("line %d: %v", i, err)
					}
				case err == nil || !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), tc.bad):
					t.Fatalf("line %d: err = %v; want ErrProtocol mentioning %q", i, err, tc.bad)
				}
			}
		})
	}
}

func TestBoundedBuffer(t *testing.T) {
	b := &boundedBuffer{limit: 4}
	for _, s := range []string{"ab", "cdef", "gh"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if string(b.Bytes()) != "abcd" || b.Total() != 8 {
		t.Fatalf("kept %q of %d", b.Bytes(), b.Total())
	}
}

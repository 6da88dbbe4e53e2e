package acp

import (
	"context"
	"encoding/json"

	"github.com/magi-code/magi-code/acp/jsonrpc"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
)

// Permission option IDs.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optRejectOnce  = "reject_once"
)

// approver asks the client through session/request_permission on the tool
// call's id, with the rules of magi-code's approvals: one answer wins, the
// request expires after protocol.ApprovalExpiry and defaults to deny
// (then $/cancel_request tells the client, and the call fails), a
// cancelled turn denies, and an answer that comes later changes nothing.
type approver struct {
	s        *session
	sink     *sink
	readOnly bool
}

// grantKey is what "allow always" grants: this exact tool and command.
func grantKey(ts *toolState) string { return ts.name + "\x00" + ts.command }

func (ap *approver) Approve(ctx context.Context, toolName, summary string) (runner.Decision, error) {
	a := ap.s.a
	if ap.readOnly {
		// Read-only refuses what would ask, without asking.
		return runner.Denied, nil
	}
	ap.sink.mu.Lock()
	ts := ap.sink.current
	ap.sink.mu.Unlock()
	if ts == nil {
		// An approval outside a tool call the client was shown: nothing to
		// show it on. It cannot be allowed.
		return runner.Denied, nil
	}
	ap.s.mu.Lock()
	granted := ap.s.grants[grantKey(ts)]
	ap.s.mu.Unlock()
	if granted {
		return runner.Allowed, nil
	}
	options := []obj{
		{"optionId": optAllowOnce, "name": "Allow once", "kind": "allow_once"},
		{"optionId": optAllowAlways, "name": "Always allow this exact " + alwaysWhat(ts) + " in this session", "kind": "allow_always"},
		{"optionId": optRejectOnce, "name": "Reject", "kind": "reject_once"},
	}
	fields := ts.fields(1, true)
	params := marshal(obj{"sessionId": ap.s.id, "toolCall": fields, "options": options})
	if len(params) > maxFrame-256 {
		params = marshal(obj{"sessionId": ap.s.id, "toolCall": ts.fields(4, false), "options": options})
	}
	id, ch, err := a.call(mRequestPerm, params)
	if err != nil {
		ap.sink.t.cancel(errOutput)
		return runner.Denied, errOutput
	}
	defer a.forget(id)
	a.opts.Log.Info("acp permission requested", "session_id", ap.s.id, "tool", ts.name)
	select {
	case m := <-ch:
		d, always := decision(m)
		if d == runner.Allowed && always {
			ap.s.mu.Lock()
			ap.s.grants[grantKey(ts)] = true
			ap.s.mu.Unlock()
		}
		if ctx.Err() != nil {
			return runner.ApprovalCancelled, ctx.Err()
		}
		return d, nil
	case <-a.opts.After(protocol.ApprovalExpiry):
		a.cancelCall(id)
		return runner.Expired, nil
	case <-ctx.Done():
		return runner.ApprovalCancelled, ctx.Err()
	}
}

func alwaysWhat(ts *toolState) string {
	if ts.name == "shell" {
		return "command"
	}
	return "call of " + ts.name
}

// decision reads the client's answer: the option it selected. Anything
// else (cancelled, an error, an unknown option) denies.
func decision(m jsonrpc.Message) (d runner.Decision, always bool) {
	if m.Error != nil {
		return runner.Denied, false
	}
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if json.Unmarshal(m.Result, &r) != nil || r.Outcome.Outcome != "selected" {
		return runner.Denied, false
	}
	switch r.Outcome.OptionID {
	case optAllowOnce:
		return runner.Allowed, false
	case optAllowAlways:
		return runner.Allowed, true
	}
	return runner.Denied, false
}

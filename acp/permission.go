package acp

import (
	"context"
	"encoding/json"

	"github.com/magi-code/magi-code/acp/jsonrpc"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner"
)

// ReasonPrefix starts the text a permission request carries as its call's
// content when a protection forced it to ask: the reason follows.
const ReasonPrefix = "magi-code asks because of a protection: "

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
	// A call the session granted never reaches here (runner.Grants); allow
	// always is offered only where the runner may grant the call: not for
	// one a protection forced to ask, nor for a call from Code Mode.
	options := []obj{{"optionId": optAllowOnce, "name": "Allow once", "kind": "allow_once"}}
	if runner.Grantable(ctx) {
		options = append(options, obj{"optionId": optAllowAlways, "name": "Always allow this exact " + alwaysWhat(ts) + " in this session", "kind": "allow_always"})
	}
	options = append(options, obj{"optionId": optRejectOnce, "name": "Reject", "kind": "reject_once"})
	// The request shows the call; why a protection asks goes beside it
	// as the call's content ("no OS sandbox: ...", a force push...).
	why := func(f obj) obj {
		if r := runner.ApprovalReason(ctx); r != "" {
			f["content"] = []obj{{"type": "content", "content": obj{"type": "text", "text": ReasonPrefix + redact.String(r)}}}
		}
		return f
	}
	params := marshal(obj{"sessionId": ap.s.id, "toolCall": why(ts.fields(1, true)), "options": options})
	if len(params) > maxFrame-256 {
		params = marshal(obj{"sessionId": ap.s.id, "toolCall": why(ts.fields(4, false)), "options": options})
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
		d := decision(m)
		if ctx.Err() != nil {
			return runner.ApprovalCancelled, ctx.Err()
		}
		if d == runner.Allowed || d == runner.AllowedForSession {
			// Stored as serve stores it, so that the session reads the
			// same wherever it is resumed; a failed append degrades
			// the run's history (the sink's log says so).
			_ = ap.sink.log.Allowed(summary, d == runner.AllowedForSession)
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
// else (cancelled, an error, an unknown option) denies. allow_always is
// runner.AllowedForSession: the runner records the grant where the call
// is grantable and allows once otherwise.
func decision(m jsonrpc.Message) runner.Decision {
	if m.Error != nil {
		return runner.Denied
	}
	var r struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if json.Unmarshal(m.Result, &r) != nil || r.Outcome.Outcome != "selected" {
		return runner.Denied
	}
	switch r.Outcome.OptionID {
	case optAllowOnce:
		return runner.Allowed
	case optAllowAlways:
		return runner.AllowedForSession
	}
	return runner.Denied
}

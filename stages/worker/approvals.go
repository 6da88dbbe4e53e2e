package worker

import (
	"context"
	"sync"
	"time"

	"github.com/magi-code/magi-code/chunk"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/wire"
)

// approvals is a run's registry of approval requests. docs/protocol.md, approval.answer: "exactly one
// winning reply"; "Wrong/expired/answered identity → stale_approval; never
// authorize again"; "expires after 60,000 ms and defaults deny on
// expiry/cancel/disconnect".
type approvals struct {
	now func() time.Time

	// mu guards pending and closed.
	mu      sync.Mutex
	pending map[string]*approval
	closed  bool
}

type approval struct {
	reply    chan runner.Decision // capacity 1: the winning reply (Allowed, AllowedForSession, Denied)
	enqueued time.Time            // when approval.requested entered the event edge
	settled  bool                 // answered, expired or cancelled
}

func newApprovals(now func() time.Time) *approvals {
	return &approvals{now: now, pending: make(map[string]*approval)}
}

// add registers a request, or returns nil once the run has ended.
func (a *approvals) add(id string) *approval {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	ap := &approval{reply: make(chan runner.Decision, 1), enqueued: a.now()}
	a.pending[id] = ap
	return ap
}

// answer records the winning reply for id. docs/protocol.md, Choices: an approval answered
// at 60,000 ms or later after approval.requested was enqueued is expired.
//
// The reply is settled at once (expiry and cancellation can no longer win)
// but sent to the waiting call only by deliver, so that the caller can put
// the answer's response on the wire before anything the reply causes.
func (a *approvals) answer(id string, d runner.Decision) (protocol.Code, func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ap := a.pending[id]
	if ap == nil || ap.settled || a.closed || a.now().Sub(ap.enqueued) >= protocol.ApprovalExpiry {
		return protocol.CodeStaleApproval, nil
	}
	ap.settled = true
	return "", func() { ap.reply <- d }
}

// settle marks id as no longer answerable and reports whether it was still
// open (false: a reply won first and is waiting in reply).
func (a *approvals) settle(ap *approval) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ap.settled {
		return false
	}
	ap.settled = true
	return true
}

// closeAll ends the registry: every later answer is stale.
func (a *approvals) closeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
}

// approver asks the client through approval.requested.
type approver struct {
	pool *Pool
	run  *activeRun
	sink *turnSink // records an allowed request; nil records nothing
}

// Approve implements runner.Approver: it blocks until the winning reply
// (Allowed or Denied), expiry (Expired) or ctx's end (Cancelled, with ctx's
// error). The decision is logged with the tool's name.
func (ap *approver) Approve(ctx context.Context, toolName, summary string) (runner.Decision, error) {
	summary = redact.Summary(summary, protocol.SummaryBytes)
	d, err := ap.ask(ctx, toolName, summary)
	if (d == runner.Allowed || d == runner.AllowedForSession) && err == nil && ap.sink != nil {
		// The history shows the request the person allowed, as the
		// live client did (history.RunLog.Allowed).
		if err := ap.sink.log.Allowed(summary, d == runner.AllowedForSession); err != nil {
			ap.run.cancel(err)
		}
	}
	return d, err
}

// ask sends the approval request of summary (redacted) and waits for its
// decision.
func (ap *approver) ask(ctx context.Context, toolName, summary string) (d runner.Decision, err error) {
	id := ap.pool.opts.NewID()
	defer func() {
		if err == nil || d == runner.ApprovalCancelled {
			ap.pool.opts.Log.Info("approval", "run_id", ap.run.id, "approval_id", id, "tool", toolName, "decision", d.String())
		}
	}()
	req := ap.run.approvals.add(id)
	if req == nil {
		return runner.ApprovalCancelled, ctx.Err()
	}
	// With the approval.session capability the request says whether it
	// may be answered for the session (runner.Grantable).
	scoped := ap.pool.scoped.Load()
	ev := wire.Event{Name: protocol.EventApprovalRequested, SessionID: ap.run.sessionID, RunID: ap.run.id,
		ApprovalID: id, Summary: summary,
		ExpiresInMs: int64(protocol.ApprovalExpiry / time.Millisecond),
		Scoped:      scoped, SessionGrant: scoped && runner.Grantable(ctx)}
	if ap.pool.whole.Load() {
		ev.Whole = true
		ev.Request, ev.RequestTruncated = wholeRequest(runner.Request(ctx), summary)
	}
	if err := ap.pool.offer(ev); err != nil {
		ap.run.approvals.settle(req)
		return runner.Denied, err
	}
	// The expiry counts from the moment the request entered the event edge.
	ap.run.approvals.mu.Lock()
	req.enqueued = ap.run.approvals.now()
	ap.run.approvals.mu.Unlock()

	timer := time.NewTimer(protocol.ApprovalExpiry)
	defer timer.Stop()
	select {
	case d := <-req.reply:
		return d, nil
	case <-timer.C:
		if ap.run.approvals.settle(req) {
			return runner.Expired, nil // default deny
		}
	case <-ctx.Done():
		if ap.run.approvals.settle(req) {
			return runner.ApprovalCancelled, ctx.Err()
		}
	}
	// A reply won the race with expiry or cancellation; honour it only if
	// the run goes on.
	d = <-req.reply
	if ctx.Err() != nil {
		return runner.ApprovalCancelled, ctx.Err()
	}
	return d, nil
}

// answered is the person's decision in an approval.answer: allow, for
// the session ("scope": "session") or once, or deny. A session answer to
// a request that is not grantable allows once (runner.Grants).
func answered(a dispatch.AnswerParams) runner.Decision {
	switch {
	case a.Allow && a.ForSession:
		return runner.AllowedForSession
	case a.Allow:
		return runner.Allowed
	}
	return runner.Denied
}

// wholeRequest is approval.requested's "request" (the approval.request
// capability): the whole request redacted, then cut to
// protocol.ApprovalRequestBytes raw and ApprovalRequestEscapedBytes
// escaped at a rune boundary, and whether it was cut. A tool that
// describes no more than its summary (whole == "") sends the summary.
func wholeRequest(whole, summary string) (string, bool) {
	if whole == "" {
		return summary, false
	}
	s := redact.String(whole)
	n := chunk.Next(s, protocol.ApprovalRequestBytes, protocol.ApprovalRequestEscapedBytes)
	return s[:n], n < len(s)
}

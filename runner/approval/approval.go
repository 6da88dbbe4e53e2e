// Package approval says who decided a tool call that asked for approval:
// the person (allow, deny), nobody in time (expiry), the run's end
// (cancellation), or a protection (refusal). Outcome is the one place that
// turns a decision that stops a call into what the model reads and what
// every surface shows (the activity summary, hence history, the diagnostic
// log and Mission Control).
package approval

import "context"

// Decision is how an approval request ended.
type Decision int

const (
	// Denied: the person answered no. It is the zero value: a decision
	// nobody made is never an approval.
	Denied Decision = iota
	// Allowed: the person answered yes.
	Allowed
	// Expired: nobody answered within the approval expiry (default deny).
	Expired
	// Cancelled: the run ended first (turn.cancel, shutdown, disconnect).
	Cancelled
	// Refused: a protection stopped the call and there was nobody to ask.
	Refused
)

// String is the decision's word in the diagnostic log.
func (d Decision) String() string {
	switch d {
	case Allowed:
		return "allowed"
	case Expired:
		return "expired"
	case Cancelled:
		return "cancelled"
	case Refused:
		return "refused"
	case AllowedForSession:
		return "allowed for this session"
	}
	return "denied"
}

// Approver asks the person to allow one tool call.
type Approver interface {
	// Approve blocks until the person answers, the request expires or ctx
	// ends. It returns Allowed, Denied or Expired, or Cancelled with ctx's
	// error once ctx has ended; any other error means the request could
	// not be delivered.
	Approve(ctx context.Context, toolName, summary string) (Decision, error)
}

// Texts the model reads for a call that did not run.
const (
	TextDenied    = "denied by user"
	TextExpired   = "denied: nobody answered the approval request in time"
	TextCancelled = "cancelled"
	refusedPrefix = "refused: "
	// noApprover is the reason of a refusal with nobody to ask and no
	// protection's reason.
	noApprover = "nobody to approve the call"
)

// Outcome returns what the model reads and the activity summary for a call
// of tool that did not run because of d (not Allowed). reason is the
// protection's fixed reason when a protection forced the approval ("" when
// the approval mode asked): a fixed phrase that never quotes the call.
//
//	Denied     "shell: denied by user"               (+ " (protected: REASON)")
//	Expired    "shell: approval expired, not run"     or, protected,
//	           "shell: refused: REASON (approval expired)"
//	Cancelled  "shell: cancelled"
//	Refused    "shell: refused: REASON"
func Outcome(tool string, d Decision, reason string) (text, summary string) {
	prefix := tool + ": "
	switch d {
	case Expired:
		if reason != "" {
			return refusedPrefix + reason + "; " + TextExpired, prefix + refusedPrefix + reason + " (approval expired)"
		}
		return TextExpired, prefix + "approval expired, not run"
	case Cancelled:
		return TextCancelled, prefix + TextCancelled
	case Refused:
		if reason == "" {
			reason = noApprover
		}
		return refusedPrefix + reason, prefix + refusedPrefix + reason
	}
	if reason != "" {
		return TextDenied, prefix + TextDenied + " (protected: " + reason + ")"
	}
	return TextDenied, prefix + TextDenied
}

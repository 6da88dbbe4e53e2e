package agent

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider"
)

// Error is a run failure with a safe protocol code. Error() returns only the
// code; the cause is kept for errors.Is/As and injected logs.
type Error struct {
	Code protocol.Code
	Err  error
}

func (e *Error) Error() string { return "agent: " + string(e.Code) }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrorCode reports the safe code.
func (e *Error) ErrorCode() protocol.Code { return e.Code }

// ErrCancelled is returned (wrapped) when the run's ctx ended without a
// coded cause.
var ErrCancelled = errors.New("agent: cancelled")

// Errors for the run bounds.
var (
	errContentLimit = &Error{Code: protocol.CodeContentLimit, Err: errors.New("assistant content over the per-run bound")}
	errSegmentLimit = &Error{Code: protocol.CodeContentLimit, Err: errors.New("assistant segments over the per-run bound")}
	errActivityLim  = &Error{Code: protocol.CodeContentLimit, Err: errors.New("activity identities over the per-run bound")}
)

// ErrRoundLimit fails a run that reached Config.MaxRounds provider calls
// (execution_failed, as the local-agent protocol has always said); a front
// door may tell it apart (ACP's stop reason max_turn_requests).
var ErrRoundLimit error = &Error{Code: protocol.CodeExecutionFailed, Err: errors.New("provider rounds over the per-run cap")}

// coded is implemented by errors that carry a safe code (agent.Error,
// provider.Error, and any error a Sink returns that wants its own code).
type coded interface{ ErrorCode() protocol.Code }

// CodeOf returns the safe code carried by err, or fallback if it carries
// none.
func CodeOf(err error, fallback protocol.Code) protocol.Code {
	var c coded
	if errors.As(err, &c) {
		if code := c.ErrorCode(); code != "" {
			return code
		}
	}
	return fallback
}

// sinkError wraps an error from the Sink: its own code if it has one,
// output_unavailable otherwise (docs/protocol.md, Ordering and delivery: "Critical worker-event delivery
// failure cancels the run with output_unavailable").
func sinkError(err error) error {
	return &Error{Code: CodeOf(err, protocol.CodeOutputUnavailable), Err: err}
}

// ctxError is the error for a run whose ctx ended: the cause's code when
// the canceller gave one, ErrCancelled otherwise.
func ctxError(ctx context.Context) error {
	cause := context.Cause(ctx)
	var c coded
	if errors.As(cause, &c) && c.ErrorCode() != "" {
		return &Error{Code: c.ErrorCode(), Err: cause}
	}
	return ErrCancelled
}

// FailureDetail is what the diagnostic log says of a failed run's error
// err beyond its code, for the person a failure's message sends to
// `magi-code logs`: for a provider's failure its reason's name and HTTP
// status, then the cause's own words (a refused connection, an answer
// that did not parse, a bound the run reached), whatever wraps them, cut at
// FailureDetailBytes; "" when err says nothing more than its code. The log
// redacts it like every string; it never goes on the wire.
func FailureDetail(err error) string {
	// The cause is the first error below the last coded one: a coded
	// error's own text is its code, and what wraps it says no more.
	var parts []string
	var cause error
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch x := e.(type) {
		case *Error:
			cause = nil
		case *provider.Error:
			cause = nil
			s := "provider call failed: " + provider.ReasonOf(x).String()
			if x.Status != 0 {
				s += ", HTTP " + strconv.Itoa(x.Status)
			}
			parts = append(parts[:0], s)
		default:
			if cause == nil {
				cause = e
			}
		}
	}
	if cause != nil {
		parts = append(parts, cause.Error())
	}
	s := strings.Join(parts, ": ")
	if len(s) > FailureDetailBytes {
		s = strings.ToValidUTF8(s[:FailureDetailBytes], "") + "..."
	}
	return s
}

// FailureDetailBytes bounds FailureDetail.
const FailureDetailBytes = 1024

// ProviderFailureSummary is the diagnostic summary of a failed provider
// call: the fixed sentence of its reason (provider.Reason.Summary), never
// the provider's answer or an error string.
func ProviderFailureSummary(err error) string {
	return "provider error: " + provider.ReasonOf(err).Summary()
}

// RetryNoticeAfter is how long a provider call's retries may delay it
// before each further retry is a diagnostic (protocol.DiagProviderRetry);
// shorter delays are only in the diagnostic log.
const RetryNoticeAfter = time.Second

// retried is the run's provider retry trace (provider.WithRetryTrace): a
// retry whose waits so far add up to more than RetryNoticeAfter is a
// diagnostic. A diagnostic that cannot be delivered does not stop the
// retry (the sink accounts its own failure), as for hooks.
func (r *run) retried(rt provider.Retry) {
	if rt.Waited > RetryNoticeAfter {
		_ = r.sink.Diagnostic(protocol.DiagProviderRetry, RetrySummary(rt))
	}
}

// RetrySummary is the diagnostic summary of a retry: the reason's name,
// the HTTP status when there was one, the wait and the attempt. Fixed
// text and numbers only, never the provider's answer.
func RetrySummary(rt provider.Retry) string {
	what := rt.Reason.String()
	if rt.Status != 0 {
		what += ", HTTP " + strconv.Itoa(rt.Status)
	}
	return "provider call failed (" + what + "); retrying in " + rt.Delay.Round(100*time.Millisecond).String() +
		" (attempt " + strconv.Itoa(rt.Attempt+1) + " of " + strconv.Itoa(rt.Attempts) + ")"
}

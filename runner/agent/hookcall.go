package agent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/magi-code/magi-code/runner/tools"
)

// TextBlocked starts the result the model sees for a call a hook blocked;
// the hook's reason follows.
const TextBlocked = "blocked by hook: "

// preToolUse runs the PreToolUse hook. A block becomes the call's error
// result (the model sees the reason; the tool never runs). A failing hook
// is a diagnostic and the call goes on; only a diagnostic that cannot be
// delivered stops the run (err).
func (r *run) preToolUse(ctx context.Context, name string, args json.RawMessage) (res tools.Result, blocked bool, err error) {
	if r.cfg.Hooks == nil {
		return res, false, nil
	}
	block, reason, herr := r.cfg.Hooks.PreToolUse(ctx, name, args)
	if ctx.Err() != nil {
		// Cancelled while the hook ran: not a hook failure, and the tool
		// never starts.
		return tools.Result{Text: TextCancelled, IsError: true, Summary: name + ": cancelled"}, true, nil
	}
	if herr != nil {
		// hooks.go: a failing hook "never blocks by itself".
		return res, false, r.diagnose(name + ": pre_tool_use hook failed")
	}
	if !block {
		return res, false, nil
	}
	if reason == "" {
		reason = "no reason given"
	}
	return tools.Result{Text: TextBlocked + reason, IsError: true, Summary: name + ": blocked by hook"}, true, nil
}

// postToolUse runs the PostToolUse hook after a call that ran.
func (r *run) postToolUse(ctx context.Context, name string, args json.RawMessage, res tools.Result) error {
	if r.cfg.Hooks == nil {
		return nil
	}
	if err := r.cfg.Hooks.PostToolUse(ctx, name, args, res.Text, res.IsError); err != nil && ctx.Err() == nil {
		return r.diagnose(name + ": post_tool_use hook failed")
	}
	return nil
}

// stopHook runs the Stop hook once at the end of the run, whatever its
// outcome, and returns the run's final error. It runs without the run's
// cancellation (a cancelled turn still runs its Stop hook; the hook's own
// timeout bounds it). A failed hook is a diagnostic; a diagnostic that
// cannot be delivered fails a run that had completed.
func (r *run) stopHook(ctx context.Context, runErr error) error {
	if r.cfg.Hooks == nil {
		return runErr
	}
	outcome := Completed
	switch {
	case runErr == nil:
	case errors.Is(runErr, ErrCancelled):
		outcome = Cancelled
	default:
		outcome = Failed
	}
	if err := r.cfg.Hooks.Stop(context.WithoutCancel(ctx), outcome); err != nil {
		if derr := r.diagnose("stop hook failed"); derr != nil && runErr == nil {
			return derr
		}
	}
	return runErr
}

// diagnose reports a hook failure; the error is a sink failure.
func (r *run) diagnose(summary string) error {
	if err := r.sink.Diagnostic(DiagHookFailed, summary); err != nil {
		return sinkError(err)
	}
	return nil
}

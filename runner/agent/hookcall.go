package agent

import (
	"context"
	"encoding/json"

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

// stopHook runs the Stop hook once at the end of a run that ended by
// itself (completed or failed), and returns the run's final error. It runs
// under the run's context, like every other hook: a run whose context ended
// (turn.cancel, shutdown, EOF, lost output) starts no stop hook, and a
// cancellation that arrives while the hook runs kills its process group at
// once and ends the run cancelled (or with the cancellation's code), so
// that run.finished follows turn.cancel promptly and shutdown or EOF can
// drain within the closing deadline. A failed hook is a diagnostic; a
// diagnostic that cannot be delivered fails a run that had completed.
func (r *run) stopHook(ctx context.Context, runErr error) error {
	if r.cfg.Hooks == nil || ctx.Err() != nil {
		return runErr
	}
	outcome := Completed
	if runErr != nil {
		outcome = Failed
	}
	err := r.cfg.Hooks.Stop(ctx, outcome)
	if ctx.Err() != nil {
		// Cancelled while the hook ran: not a hook failure.
		return ctxError(ctx)
	}
	if err != nil {
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

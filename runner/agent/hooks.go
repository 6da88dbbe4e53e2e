package agent

import (
	"context"
	"encoding/json"
)

// Hooks are the commands configured in settings ([[hooks]]) that run before
// and after a tool call and at the end of a turn. Run calls them from its
// own goroutine, in order; a nil Hooks runs none. runner/hooks implements
// it.
type Hooks interface {
	// PreToolUse runs before a tool call (after approval, before the tool
	// runs). block stops the call: the model sees reason as the tool's error
	// result and the tool never runs. err reports a hook that failed (exit
	// status other than the blocking one, timeout, spawn failure): the run
	// reports it as a diagnostic and goes on; it never blocks by itself.
	PreToolUse(ctx context.Context, tool string, args json.RawMessage) (block bool, reason string, err error)
	// PostToolUse runs after a tool call with its outcome.
	PostToolUse(ctx context.Context, tool string, args json.RawMessage, result string, isError bool) error
	// Stop runs once when the turn ends by itself (completed or failed);
	// a cancelled turn runs none. ctx is the run's: when it ends, the
	// running hook is killed and Stop returns.
	Stop(ctx context.Context, outcome Outcome) error
}

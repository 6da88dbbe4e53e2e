package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"github.com/magi-code/magi-code/runner/agent"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/tools"
)

// Events, with the spelling of [[hooks]] event.
const (
	PreToolUse  = "pre_tool_use"
	PostToolUse = "post_tool_use"
	Stop        = "stop"
)

// Bounds.
const (
	// DefaultTimeout applies when a hook's timeout_ms is zero.
	DefaultTimeout = 10 * time.Second
	// InputFieldBytes bounds the arguments and the result in a hook's
	// stdin document.
	InputFieldBytes = 64 << 10
	// OutputBytes bounds what is kept of a hook's stdout and of its
	// stderr; a block reason is at most this long.
	OutputBytes = 16 << 10
	// logBytes bounds each output excerpt handed to logf.
	logBytes = 1024
)

// Runner runs the configured hooks. It implements agent.Hooks. It is
// immutable after New and safe for concurrent use.
type Runner struct {
	hooks      []hook
	cwd        string
	invocation string
	env        []string
	logf       func(string, ...any)
	// sandbox, when set, confines each hook command before it starts.
	sandbox func(*exec.Cmd) error
}

// Sandboxed makes r confine every hook command with wrap (it rewrites the
// command to start through the OS sandbox's launcher) and returns r. Call
// it before the first run.
func (r *Runner) Sandboxed(wrap func(*exec.Cmd) error) *Runner {
	r.sandbox = wrap
	return r
}

var _ agent.Hooks = (*Runner)(nil)

// hook is one [[hooks]] entry, ready to run.
type hook struct {
	index   int // 1-based position in settings, for errors and logs
	event   string
	all     bool           // matcher "" or "*"
	match   *regexp.Regexp // nil with all, or when the matcher is invalid
	bad     bool           // the matcher does not compile
	command string
	timeout time.Duration
}

// New returns a Runner for hooks (settings order kept), running commands
// in cwd. invocation is what started the turns (protocol.InvocationLocalAgent
// for serve, protocol.InvocationMissionControl for the terminal app); every
// hook reads it in its input. logf receives details of every hook run (never on the wire); nil
// discards them. Hooks of an unknown event are kept out and logged (config
// validation rejects them first); an invalid matcher is kept and fails at
// each event of its kind (see the package doc).
func New(hooks []config.Hook, cwd, invocation string, logf func(string, ...any)) *Runner {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	r := &Runner{cwd: cwd, invocation: invocation, env: tools.MinimalEnv(), logf: logf}
	for i, h := range hooks {
		hk := hook{index: i + 1, event: h.Event, command: h.Command, timeout: DefaultTimeout}
		if h.TimeoutMs > 0 {
			hk.timeout = time.Duration(h.TimeoutMs) * time.Millisecond
		}
		switch h.Event {
		case PreToolUse, PostToolUse, Stop:
		default:
			logf("hooks: hook %d: unknown event, ignored", hk.index)
			continue
		}
		if h.Event != Stop {
			re, all, err := compileMatcher(h.Matcher)
			if err != nil {
				logf("hooks: hook %d: invalid matcher: %v", hk.index, err)
				hk.bad = true
			}
			hk.match, hk.all = re, all
		}
		r.hooks = append(r.hooks, hk)
	}
	return r
}

// CheckMatcher reports whether m is a valid matcher (see the package doc).
// The error quotes m: keep it off the wire.
func CheckMatcher(m string) error {
	_, _, err := compileMatcher(m)
	return err
}

// compileMatcher returns (nil, true, nil) for a matcher that matches every
// tool, else the anchored regexp.
func compileMatcher(m string) (*regexp.Regexp, bool, error) {
	if m == "" || m == "*" {
		return nil, true, nil
	}
	re, err := regexp.Compile("^(?:" + m + ")$")
	if err != nil {
		return nil, false, err
	}
	return re, false, nil
}

// matches reports whether h runs for tool.
func (h *hook) matches(tool string) bool {
	return h.all || h.bad || (h.match != nil && h.match.MatchString(tool))
}

// PreToolUse runs the matching pre_tool_use hooks in settings order until
// one blocks (exit 2): then block is true, reason is that hook's trimmed,
// redacted stderr (a fixed text when empty) and err is nil, even when an
// earlier hook failed (that failure is only logged). Otherwise the
// failures of the hooks that ran are joined into err; they never block. It blocks until the hooks
// are done; when ctx ends the running hook's group is killed and PreToolUse
// returns at once with a cancellation error (errors.Is ctx.Err()).
func (r *Runner) PreToolUse(ctx context.Context, tool string, args json.RawMessage) (block bool, reason string, err error) {
	var input []byte
	var errs []error
	for i := range r.hooks {
		h := &r.hooks[i]
		if h.event != PreToolUse || !h.matches(tool) {
			continue
		}
		if input == nil {
			input = encodeInput(PreToolUse, r.invocation, r.cwd, tool, args, nil, false, "")
		}
		res := r.run(ctx, h, tool, input)
		if res.err != nil {
			errs = append(errs, res.err)
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if res.code == 2 {
			// A block wins over earlier failures (already logged): a caller
			// that handles err first must never lose the block.
			return true, blockReason(res.stderr), nil
		}
	}
	return false, "", errors.Join(errs...)
}

// PostToolUse runs every matching post_tool_use hook in settings order with
// the call's outcome; failures are joined into the error. Output is only
// logged. When ctx ends, the running hook is killed and no later hook runs.
func (r *Runner) PostToolUse(ctx context.Context, tool string, args json.RawMessage, result string, isError bool) error {
	var input []byte
	var errs []error
	for i := range r.hooks {
		h := &r.hooks[i]
		if h.event != PostToolUse || !h.matches(tool) {
			continue
		}
		if input == nil {
			input = encodeInput(PostToolUse, r.invocation, r.cwd, tool, args, &result, isError, "")
		}
		if res := r.run(ctx, h, tool, input); res.err != nil {
			errs = append(errs, res.err)
			if ctx.Err() != nil {
				break
			}
		}
	}
	return errors.Join(errs...)
}

// Stop runs every stop hook in settings order with the turn's outcome;
// failures are joined into the error. On a done ctx no hook starts; when
// ctx ends, the running hook's group is killed and no later hook runs.
func (r *Runner) Stop(ctx context.Context, outcome agent.Outcome) error {
	var input []byte
	var errs []error
	for i := range r.hooks {
		h := &r.hooks[i]
		if h.event != Stop {
			continue
		}
		if input == nil {
			input = encodeInput(Stop, r.invocation, r.cwd, "", nil, nil, false, string(outcome))
		}
		if res := r.run(ctx, h, "", input); res.err != nil {
			errs = append(errs, res.err)
			if ctx.Err() != nil {
				break
			}
		}
	}
	return errors.Join(errs...)
}

// Cause says why a hook failed.
type Cause int

// Causes.
const (
	CauseExit      Cause = iota + 1 // exit status other than 0 (and 2 for pre_tool_use)
	CauseSignal                     // killed by a signal we did not send
	CauseTimeout                    // ran past its timeout; its group was killed
	CauseCancelled                  // ctx ended; its group was killed
	CauseStart                      // could not start (pipes, cwd, the shell)
	CauseMatcher                    // its matcher does not compile
)

// Error is one hook failure. Its Error text is fixed and safe to show in a
// diagnostic: event, position in settings and cause, never the command,
// its output or a path.
type Error struct {
	Event string // pre_tool_use, post_tool_use or stop
	Index int    // 1-based position among the settings' [[hooks]]
	Cause Cause
	// ExitCode is the exit status with CauseExit, -1 otherwise.
	ExitCode int
	// Timeout is the hook's timeout with CauseTimeout.
	Timeout time.Duration
	// ctxErr is ctx.Err() with CauseCancelled.
	ctxErr error
}

func (e *Error) Error() string {
	s := e.Event + " hook " + strconv.Itoa(e.Index)
	switch e.Cause {
	case CauseExit:
		return s + " failed (exit status " + strconv.Itoa(e.ExitCode) + ")"
	case CauseSignal:
		return s + " failed (killed by a signal)"
	case CauseTimeout:
		return s + " timed out after " + e.Timeout.String()
	case CauseCancelled:
		return s + " cancelled"
	case CauseStart:
		return s + " could not start"
	case CauseMatcher:
		return s + " has an invalid matcher"
	}
	return s + " failed"
}

// Unwrap returns ctx.Err() for a cancelled hook, so that
// errors.Is(err, context.Canceled) holds; nil otherwise.
func (e *Error) Unwrap() error { return e.ctxErr }

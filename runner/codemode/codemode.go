package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/magi-code/magi-code/runner/approval"
	"github.com/magi-code/magi-code/runner/tools"
)

// Name is the tool's name as offered to the model (docs/architecture.md, The agent runner: Code
// Mode is the tool run_code, argument code, JavaScript).
const Name = "run_code"

// Defaults for zero Options fields.
const (
	DefaultTimeout          = 30 * time.Second
	DefaultMaxToolCalls     = 64
	DefaultMaxOutputBytes   = tools.DefaultMaxOutput // console.log + returned value
	DefaultMaxStringBytes   = 1 << 20                // one string crossing the API, and one call's JSON arguments
	DefaultMaxArrayLen      = 10000                  // one array (or object's keys) crossing the API
	DefaultMaxHeapBytes     = 256 << 20              // live heap growth during one program
	DefaultMaxCallStackSize = 1024                   // JavaScript call depth
	DefaultMaxInternalLen   = 32 << 20               // elements one guarded built-in may produce
	DefaultMaxCodeBytes     = 256 << 10              // the program's source
	watchdogInterval        = 2 * time.Millisecond
	maxDepth                = 32 // nesting of values crossing the API (the protocol's JSON depth)
)

// ApprovalAuto is the Options.Approval value under which no call inside a
// program asks; any other value asks before every mutating call.
const ApprovalAuto = "auto"

// Approver asks the user to allow one tool call; the run's approver plugs
// in directly (agent.Approver is the same type).
type Approver = approval.Approver

// Activity reports the tool calls made inside a program, one activity each
// (kind tool). Methods are called on the goroutine running Run, in order.
type Activity interface {
	// Start opens the activity of one call before approval and execution.
	// summary is short and safe ("from code: read_file"). It returns the
	// activity ID, or an error to refuse the call (for example because the
	// run's 4096 activity identities are used up): the call then never
	// runs and the program sees a ToolError with code "limit".
	Start(name, summary string) (activityID string, err error)
	// Finish closes it. summary is the tool's safe outcome summary, never
	// raw arguments or results; failed is the activity state. An error
	// (the event could not be delivered) throws a ToolError with code
	// "limit" in the program; the integrator is expected to cancel the
	// run itself if delivery failure is fatal.
	Finish(activityID, name, summary string, failed bool) error
}

// Options configure run_code. Zero numeric fields take the defaults above.
type Options struct {
	// Tools are the tools a program may call, already filtered by the Code
	// Mode allow list ([tools.code_mode]); nothing else is callable.
	Tools []tools.Tool
	// Approval is Code Mode's own policy: ApprovalAuto, or anything else to
	// ask before each mutating call. It is independent of tools.approval.
	Approval string
	// Approver answers approval requests; nil denies every request.
	Approver Approver
	// Activity reports calls inside programs; nil reports none.
	Activity Activity

	Timeout          time.Duration
	MaxToolCalls     int
	MaxOutputBytes   int
	MaxStringBytes   int
	MaxArrayLen      int
	MaxHeapBytes     int64
	MaxCallStackSize int
	MaxInternalLen   int
	MaxCodeBytes     int
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxToolCalls <= 0 {
		o.MaxToolCalls = DefaultMaxToolCalls
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if o.MaxStringBytes <= 0 {
		o.MaxStringBytes = DefaultMaxStringBytes
	}
	if o.MaxArrayLen <= 0 {
		o.MaxArrayLen = DefaultMaxArrayLen
	}
	if o.MaxHeapBytes <= 0 {
		o.MaxHeapBytes = DefaultMaxHeapBytes
	}
	if o.MaxCallStackSize <= 0 {
		o.MaxCallStackSize = DefaultMaxCallStackSize
	}
	if o.MaxInternalLen <= 0 {
		o.MaxInternalLen = DefaultMaxInternalLen
	}
	if o.MaxCodeBytes <= 0 {
		o.MaxCodeBytes = DefaultMaxCodeBytes
	}
	return o
}

// Tool is the run_code tool. It implements tools.Tool and is safe for use
// by one run at a time (each Run builds its own VM; Runs do not share
// state, so concurrent Runs are in fact safe too).
type Tool struct {
	opts  Options
	desc  string
	names map[string]tools.Tool // callable tools by name
}

// New returns run_code configured by opts. The description, with the
// generated declarations, is computed once here.
func New(opts Options) *Tool {
	o := opts.withDefaults()
	t := &Tool{opts: o, names: make(map[string]tools.Tool, len(o.Tools))}
	for _, tl := range o.Tools {
		if tl == nil || tl.Name() == Name {
			continue // a program cannot start another program
		}
		t.names[tl.Name()] = tl
	}
	t.desc = description(o)
	return t
}

// With returns a copy of t that uses the given run-scoped approver and
// activity reporter, sharing everything else: build the tool once per
// configuration and bind it to each run cheaply.
func (t *Tool) With(a Approver, act Activity) *Tool {
	c := *t
	c.opts.Approver = a
	c.opts.Activity = act
	return &c
}

// Name returns "run_code".
func (*Tool) Name() string { return Name }

// Description explains Code Mode and carries the TypeScript-style
// declarations of the callable tools.
func (t *Tool) Description() string { return t.desc }

// Schema is {code: string}.
func (*Tool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"JavaScript: the body of an async function; return the result"}},"required":["code"]}`)
}

// Mutating is false: the program needs no approval of its own; each
// mutating call inside it asks under Code Mode's policy.
func (*Tool) Mutating() bool { return false }

// Describe says how long the program is, never its text.
func (*Tool) Describe(args json.RawMessage) string {
	var a codeArgs
	if json.Unmarshal(args, &a) != nil {
		return "run JavaScript"
	}
	return "run JavaScript (" + strconv.Itoa(len(a.Code)) + " bytes)"
}

type codeArgs struct {
	Code string `json:"code"`
}

// Run runs one program. It blocks until the program ends, the time limit
// passes, a bound is hit or ctx ends; in every case it returns a bounded
// result and leaves no goroutine behind.
func (t *Tool) Run(ctx context.Context, args json.RawMessage) tools.Result {
	var a codeArgs
	if len(strings.TrimSpace(string(args))) != 0 {
		if err := json.Unmarshal(args, &a); err != nil {
			return fail("invalid arguments", "invalid arguments")
		}
	}
	if strings.TrimSpace(a.Code) == "" {
		return fail("missing code", "missing code")
	}
	if len(a.Code) > t.opts.MaxCodeBytes {
		return fail("code too long (limit "+strconv.Itoa(t.opts.MaxCodeBytes)+" bytes)", "code too long")
	}
	if ctx.Err() != nil {
		return fail("cancelled", "cancelled")
	}
	res, runaway := t.run(ctx, a.Code)
	if runaway {
		// A runaway leaves its heap behind (often far more than the
		// budget: Go cannot stop one native allocation half way). Give it
		// back now rather than keep a long-lived backend at that size
		// until the scavenger gets to it, and so that the next program's
		// watchdog does not start over it.
		debug.FreeOSMemory()
	}
	return res
}

// run runs one program; runaway reports a memory-limit stop. The program
// is unreachable once run returns.
func (t *Tool) run(ctx context.Context, code string) (res tools.Result, runaway bool) {
	p := newProgram(ctx, t)
	res = p.run(code)
	return res, errors.Is(context.Cause(p.ctx), errHeapLimit)
}

// fail is an error result with text for the model and a safe summary.
func fail(text, what string) tools.Result {
	return tools.Result{Text: Name + ": " + text, IsError: true, Summary: Name + ": " + what}
}

package agent

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"unsafe"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/approval"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/tools"
)

// Message and ToolCall are the provider's plain conversation types.
type (
	Message  = provider.Message
	ToolCall = provider.ToolCall
)

// Approval modes (settings key tools.approval).
const (
	ApprovalAsk  = "ask"  // mutating tools ask first (also any unknown value)
	ApprovalAuto = "auto" // no tool asks
)

// DefaultMaxRounds caps provider calls per run when Config.MaxRounds is 0.
// It sits above protocol.RunSegments so that the protocol's 512-segment bound (one
// segment per round at most) is the one a chatty model meets first.
const DefaultMaxRounds = 1024

// Tool results the model sees for calls that did not run normally.
const (
	TextDenied    = approval.TextDenied
	TextCancelled = approval.TextCancelled
	TextNotRun    = "not run: the run stopped before this call"
	TextUnknown   = "unknown tool"
)

// UnknownToolName is the activity name a sink shows for a call whose name
// the model made up and that is not safe to show.
const UnknownToolName = "unknown"

// Approver asks the user to allow one tool call (see approval.Approver).
type Approver = approval.Approver

// Sink receives a run's visible progress. Every method is called from the
// goroutine running Run, in order. An error from any method stops the run:
// its code if it carries one (see CodeOf), output_unavailable otherwise.
type Sink interface {
	// SegmentStart opens an assistant segment: a new message ID, used for
	// the text of one provider response (tool rounds separate segments).
	SegmentStart(messageID string)
	// TextDelta appends text to the open segment.
	TextDelta(messageID, text string) error
	// SegmentEnd closes the segment with its full accepted text: the
	// authoritative content to reconcile, also on failure or cancellation.
	SegmentEnd(messageID, fullText string) error
	// ReasoningSummary is a provider reasoning summary (provider_summary).
	ReasoningSummary(id, text string) error
	// ToolStarted announces a tool activity before approval and execution.
	// It is called only for the primary model's own tool calls: those are
	// the calls the conversation replays.
	ToolStarted(activityID, name, summary string, call ToolCall) error
	// ToolFinished reports its end. summary is safe and short; result is
	// what the model sees (bounded; never for display without redaction).
	// failed is the activity state (error result, denial or cancellation).
	ToolFinished(activityID, name, summary, result string, isError, failed bool) error

	// Activity reports an activity that is not a primary tool call: kind
	// KindCompaction (name "compaction"), KindSubagent (name = the profile)
	// or KindTool for a call made inside a subagent or by a tool (Code
	// Mode). state is StateStarted, StateCompleted or StateFailed; the
	// same activityID goes from started to completed or failed. summary is
	// short and never holds raw arguments or results, but is not redacted.
	// Nothing here belongs in the provider replay.
	Activity(activityID, kind, name, state, summary string) error
	// Diagnostic reports a nonfatal problem (a failed hook): code is in
	// the protocol ID grammar (DiagHookFailed, ...), summary is short and
	// not redacted.
	Diagnostic(code, summary string) error
	// Compaction stores a compaction: summary replaces every message
	// before it in the provider replay, and kept are the messages that
	// follow it in the live conversation, to be replayed after it. kept
	// holds only user messages (at most the current prompt): store them as
	// replay-only input. See the package doc.
	Compaction(summary string, kept []Message) error
	// TaskScope records a delegated task-scope ceiling (see CeilingOf) in
	// the session, so that a later attachment honours it.
	TaskScope(ceiling string) error
}

// UsageSink is a Sink that also takes token usage. A Sink that implements it
// gets Usage once for each model response of the run that reported usage,
// in the order the responses ended, with where it came from: the run's own
// model loop (UsageTurn), a compaction's summary request
// (UsageCompaction) or a subagent's responses (UsageSubagent). It is
// optional: a Sink without it never sees usage.
type UsageSink interface {
	Usage(u provider.Usage, source string) error
}

// The sources of a response's usage (UsageSink), spelled as the usage
// event's source and the history's records spell them.
const (
	UsageTurn       = "turn"
	UsageCompaction = "compaction"
	UsageSubagent   = "subagent"
)

// usage reports one response's usage from source to the sink, if it takes
// usage: the one place every model call of a run counts its tokens.
func (r *run) usage(u provider.Usage, source string) error {
	if us, ok := r.sink.(UsageSink); ok {
		return us.Usage(u, source)
	}
	return nil
}

// RunningSink is a Sink that also learns when a primary tool call starts
// running: after its approval (if any was asked) and its pre_tool_use
// hook, right before the tool runs. It is optional (the ACP front door's
// pending -> in_progress).
type RunningSink interface {
	ToolRunning(activityID string)
}

// LineSink is a Sink that also learns the first line a primary tool call
// changed in its file (tools.Result.Line), right before ToolFinished, when
// the call succeeded and the tool knows it. It is optional (the ACP front
// door's tool call locations).
type LineSink interface {
	ToolLine(activityID string, line int)
}

// Activity kinds and states, spelled as in the protocol's activity event.
const (
	KindTool       = "tool"
	KindSubagent   = "subagent"
	KindCompaction = "compaction"

	StateStarted   = "started"
	StateCompleted = "completed"
	StateFailed    = "failed"
)

// DiagHookFailed is the diagnostic code of a hook that failed (docs/architecture.md, The agent runner
// 7: "A failing hook is a diagnostic, never a crash").
const DiagHookFailed = "hook_failed"

// Config is what a run needs. Provider and NewID are required in production;
// a nil NewID uses a per-run counter.
type Config struct {
	Provider provider.Provider
	Model    string
	// Thinking is the thinking level every provider call of the run asks
	// for (provider.Request.Thinking; "" is the provider's default).
	Thinking string
	// System is the system context in its documented order (instructions,
	// skills, profiles).
	System []string
	// Tools offered to the model; nil offers none.
	Tools *tools.Set
	// Approval is ApprovalAsk or ApprovalAuto; anything else asks.
	Approval string
	// Approver answers approval requests; nil denies every request.
	Approver Approver
	// Grants are the session's exact-call grants (approval.Ask): a call
	// granted earlier runs without asking, and an answer
	// approval.AllowedForSession adds one. nil grants nothing.
	Grants *approval.Grants
	// NewID returns a fresh run-scoped ID for segments, summaries and
	// activities.
	NewID func() string
	// MaxRounds caps provider calls in this run; 0 means DefaultMaxRounds.
	MaxRounds int

	// ContextWindow is the model's context window in tokens (settings
	// context_window); 0 uses ContextWindowFor(Model). Auto-compaction
	// starts when the estimated request reaches CompactPercent of it.
	ContextWindow int
	// NoCompaction turns auto-compaction off.
	NoCompaction bool
	// Subagents are the enabled subagent profiles. When there is at least
	// one, the run offers the task tool (see task.go); disabled profiles
	// must not be listed here.
	Subagents []Subagent
	// TaskScopes are the delegated task-scope ceilings the session has
	// stored (history Attachment.TaskScopes()); see CeilingOf.
	TaskScopes []string
	// Hooks run around tool calls and at the end of the run; nil runs none.
	Hooks Hooks
}

// Outcome is how a run ended, with the spelling of run.finished.outcome.
type Outcome string

// Outcomes.
const (
	Completed Outcome = "completed"
	Cancelled Outcome = "cancelled"
	Failed    Outcome = "failed"
)

// Result is what a run produced, whatever its outcome.
type Result struct {
	// Messages are this turn's new messages for replay persistence: the
	// user prompt, then assistant and tool messages. Every assistant tool
	// call has a tool message answering it.
	Messages []Message
	Outcome  Outcome
	// Code is the failure code when Outcome is Failed, "" otherwise.
	Code protocol.Code
	// MaxTokens says a Completed run's last response was ended by the
	// provider's output token limit (provider.StreamEvent.MaxTokens): the
	// reply may be cut short. A front door may tell it (ACP's stop reason
	// max_tokens); the local-agent protocol's outcome stays completed.
	MaxTokens bool
	// Accounting against the per-run bounds.
	ContentBytes int
	Segments     int
	Activities   int
}

// Run runs one turn: system + history + the user prompt, with tools, until
// the model stops calling tools, a bound is hit, a provider or sink fails,
// or ctx ends. It blocks; see the package doc for what ctx cancellation
// stops. The returned error is nil for Completed, wraps ErrCancelled for
// Cancelled, and carries a safe code (CodeOf) for Failed. history is not
// modified. Hooks.Stop runs last, unless the run was cancelled.
func Run(ctx context.Context, cfg Config, history []Message, prompt string, sink Sink) (Result, error) {
	r, res, err := newPrimary(cfg, sink)
	if r == nil {
		return res, err
	}
	r.msgs = make([]Message, 0, len(history)+8)
	r.msgs = append(r.msgs, history...)
	r.add(Message{Role: provider.RoleUser, Text: prompt})

	err = r.loop(ctx)
	err = r.stopHook(ctx, err)
	return r.result(err), err
}

// newPrimary starts a primary run (Run, Compact) with cfg's defaults
// filled in; without a provider it returns no run and the failed result.
func newPrimary(cfg Config, sink Sink) (*run, Result, error) {
	if cfg.Provider == nil {
		return nil, Result{Outcome: Failed, Code: protocol.CodeProviderUnavailable}, &Error{Code: protocol.CodeProviderUnavailable, Err: errors.New("no provider")}
	}
	if cfg.MaxRounds <= 0 {
		cfg.MaxRounds = DefaultMaxRounds
	}
	if cfg.NewID == nil {
		n := 0
		cfg.NewID = func() string { n++; return "id-" + strconv.Itoa(n) }
	}
	r := newRun(cfg, sink, &accounting{}, protocol.RunContentBytes)
	r.window = ContextWindowFor(cfg.Model, cfg.ContextWindow)
	r.compactOff = cfg.NoCompaction
	if len(cfg.Subagents) > 0 {
		r.task = newTaskTool(r)
	}
	return r, Result{}, nil
}

// result is the Result of a primary run that ended with err.
func (r *run) result(err error) Result {
	res := Result{
		Messages:     slices.Clone(r.turn),
		ContentBytes: r.content,
		Segments:     r.segments,
		Activities:   r.acct.activities,
	}
	switch {
	case err == nil:
		res.Outcome = Completed
		res.MaxTokens = r.maxTokens
	case errors.Is(err, ErrCancelled):
		res.Outcome = Cancelled
	default:
		res.Outcome = Failed
		res.Code = CodeOf(err, protocol.CodeExecutionFailed)
	}
	return res
}

// accounting is shared by a run and the subagent runs it starts: the
// protocol's activity-identity bound is per protocol run.
type accounting struct {
	activities int
}

// run is the state of one Run call, or of one subagent inside it.
type run struct {
	cfg    Config
	sink   Sink
	emitFn func(provider.StreamEvent) error // r.emit, bound once: no allocation per call

	msgs  []Message // the live conversation sent to the provider
	turn  []Message // this turn's new messages (Result.Messages), compaction aside
	calls []ToolCall

	// The open segment, if any. buf is reused across segments.
	open  bool
	segID string
	buf   []byte

	stop       error // first bound or sink failure seen inside emit
	fatal      error // a sink failure inside a tool (a subagent's activity): ends the run after the tool
	content    int   // assistant content bytes accepted
	maxContent int   // bound of content
	segments   int
	acct       *accounting
	maxTokens  bool // the last Done said the output token limit ended its response

	// Primary run only.
	task       *taskTool // nil without subagent profiles (and in subagents: no recursion)
	window     int       // context window in tokens
	compactOff bool      // off by config, or after a failed compaction
}

func newRun(cfg Config, sink Sink, acct *accounting, maxContent int) *run {
	r := &run{cfg: cfg, sink: sink, acct: acct, maxContent: maxContent}
	r.emitFn = r.emit
	return r
}

// add appends a message of this turn to the live conversation.
func (r *run) add(m Message) {
	r.msgs = append(r.msgs, m)
	r.turn = append(r.turn, m)
}

func (r *run) loop(ctx context.Context) error {
	ctx = provider.WithRetryTrace(ctx, r.retried)
	specs := r.specs()
	for round := 0; ; round++ {
		if round >= r.cfg.MaxRounds {
			return ErrRoundLimit
		}
		if ctx.Err() != nil {
			return ctxError(ctx)
		}
		if err := r.maybeCompact(ctx, specs); err != nil {
			return err
		}
		r.calls = r.calls[:0]
		req := provider.Request{Model: r.cfg.Model, Thinking: r.cfg.Thinking, System: r.cfg.System, Messages: r.msgs, Tools: specs}
		perr := r.cfg.Provider.Stream(ctx, req, r.emitFn)

		// Close the segment first: its accepted text is authoritative
		// whatever happened (docs/protocol.md, Run events: failure and cancellation keep partial
		// replies).
		text, endErr := r.endSegment()
		failure := r.stop
		if failure == nil && endErr != nil {
			failure = endErr
		}
		if failure == nil && ctx.Err() != nil {
			failure = ctxError(ctx)
		}
		if failure == nil && perr != nil {
			failure = &Error{Code: CodeOf(perr, protocol.CodeExecutionFailed), Err: perr}
			// The code stays a spec code; the person reads why. A
			// diagnostic that cannot be delivered leaves the run's own
			// code (the sink accounts its own failure), as for hooks.
			_ = r.sink.Diagnostic(string(CodeOf(perr, protocol.CodeExecutionFailed)), ProviderFailureSummary(perr))
		}
		if failure != nil {
			// Calls of a failed response never run: keep only the text.
			if text != "" {
				r.add(Message{Role: provider.RoleAssistant, Text: text})
			}
			return failure
		}
		calls := slices.Clone(r.calls)
		if text != "" || len(calls) > 0 {
			r.add(Message{Role: provider.RoleAssistant, Text: text, ToolCalls: calls})
		}
		if len(calls) == 0 {
			return nil
		}
		for i, call := range calls {
			if err := r.runTool(ctx, call); err != nil {
				// Answer every remaining call so the replayed history stays
				// valid for providers that require it.
				for _, c := range calls[i+1:] {
					r.toolMessage(c, TextNotRun)
				}
				return err
			}
		}
	}
}

// emit handles one stream event. It must not allocate per text delta.
func (r *run) emit(ev provider.StreamEvent) error {
	switch ev.Kind {
	case provider.TextDelta:
		if ev.Text == "" {
			return nil
		}
		if !r.open {
			if err := r.startSegment(); err != nil {
				return r.fail(err)
			}
		}
		// docs/protocol.md, Run events: "exceeding limits fails with content_limit ... never silent
		// truncation": the delta that would cross the bound is refused whole.
		if r.content+len(ev.Text) > r.maxContent {
			return r.fail(errContentLimit)
		}
		r.content += len(ev.Text)
		if len(r.buf)+len(ev.Text) > cap(r.buf) {
			r.grow(len(ev.Text))
		}
		r.buf = append(r.buf, ev.Text...)
		if err := r.sink.TextDelta(r.segID, ev.Text); err != nil {
			return r.fail(sinkError(err))
		}
	case provider.ReasoningSummary:
		if r.content+len(ev.Text) > r.maxContent {
			return r.fail(errContentLimit)
		}
		r.content += len(ev.Text)
		id := ev.SummaryID
		if id == "" {
			id = r.cfg.NewID()
		}
		if err := r.sink.ReasoningSummary(id, ev.Text); err != nil {
			return r.fail(sinkError(err))
		}
	case provider.ToolCallKind:
		// Each call becomes one activity identity: refuse calls past the
		// bound here, so a runaway response cannot grow r.calls unbounded.
		if r.acct.activities+len(r.calls) >= protocol.RunActivityIDs {
			return r.fail(errActivityLim)
		}
		r.calls = append(r.calls, ev.Call)
	case provider.Done:
		r.maxTokens = ev.MaxTokens
	case provider.UsageKind:
		if err := r.usage(ev.Usage, UsageTurn); err != nil {
			return r.fail(sinkError(err))
		}
	}
	return nil
}

// grow doubles the segment buffer (append grows large slices by only 1.25x,
// which copies a flood's 8 MiB about four times over), never past the run's
// content bound. Past bigSegment it takes the rest of the bound at once: a
// fresh allocation's pages become resident only as text fills them, so a
// long reply is held in one buffer, without the copies and the discarded
// halves of further doublings.
func (r *run) grow(n int) {
	need := len(r.buf) + n
	limit := max(r.maxContent-(r.content-need), need) // r.content counts this delta
	size := max(2*cap(r.buf), need, 4096)
	if size > bigSegment {
		size = limit
	}
	buf := make([]byte, len(r.buf), min(size, limit))
	copy(buf, r.buf)
	r.buf = buf
}

// bigSegment is the segment size past which the buffer stops doubling.
const bigSegment = 64 << 10

func (r *run) fail(err error) error {
	if r.stop == nil {
		r.stop = err
	}
	return r.stop
}

func (r *run) startSegment() error {
	if r.segments >= protocol.RunSegments {
		return errSegmentLimit
	}
	r.segments++
	r.segID = r.cfg.NewID()
	r.open = true
	r.buf = r.buf[:0]
	r.sink.SegmentStart(r.segID)
	return nil
}

// endSegment closes the open segment, if any, and returns its text.
func (r *run) endSegment() (string, error) {
	if !r.open {
		return "", nil
	}
	r.open = false
	var text string
	if len(r.buf) < bigSegment {
		text = string(r.buf) // the buffer is reused by the next segment
	} else {
		// One copy of a long reply: the string takes the buffer over, and
		// the next segment starts a new one.
		text = unsafe.String(unsafe.SliceData(r.buf), len(r.buf))
		r.buf = nil
	}
	if err := r.sink.SegmentEnd(r.segID, text); err != nil {
		return text, sinkError(err)
	}
	return text, nil
}

// newActivity takes one activity identity, or fails with content_limit past
// the per-run bound.
func (r *run) newActivity() (string, error) {
	if r.acct.activities >= protocol.RunActivityIDs {
		return "", errActivityLim
	}
	r.acct.activities++
	return r.cfg.NewID(), nil
}

// lookup finds the tool a call names: the run's task tool first.
func (r *run) lookup(name string) (tools.Tool, bool) {
	if r.task != nil && name == TaskToolName {
		return r.task, true
	}
	return r.cfg.Tools.Get(name)
}

// runTool runs one call as one activity and appends its tool message.
func (r *run) runTool(ctx context.Context, call ToolCall) error {
	id, err := r.newActivity()
	if err != nil {
		r.toolMessage(call, TextNotRun)
		return err
	}
	tool, known := r.lookup(call.Name)
	// The activity shows the tool's own name. For a tool the run does not
	// have, the name is the model's, untrusted: the sink shows it only if it
	// is a plain, non-secret name (else UnknownToolName).
	started, shown := TextUnknown, call.Name
	if known {
		started, shown = tool.Name()+": started", tool.Name()
	}
	if err := r.sink.ToolStarted(id, shown, started, call); err != nil {
		// Answer the call in the stored conversation too, so that it
		// replays as a valid request.
		_ = r.sink.ToolFinished(id, shown, TextNotRun, TextNotRun, true, true)
		r.toolMessage(call, TextNotRun)
		return sinkError(err)
	}
	res, stopErr := r.call(ctx, id, tool, known, call)
	if ls, ok := r.sink.(LineSink); ok && res.Line > 0 && !res.IsError {
		ls.ToolLine(id, res.Line)
	}
	ferr := r.sink.ToolFinished(id, shown, res.Summary, res.Text, res.IsError, res.IsError || ctx.Err() != nil)
	r.toolMessage(call, res.Text)
	if stopErr != nil {
		return stopErr
	}
	if ferr != nil {
		return sinkError(ferr)
	}
	return nil
}

// call decides and runs one tool call: approval (forced by protections
// even under "auto"), the PreToolUse hook, the tool, the PostToolUse hook.
// stopErr ends the run after the call is reported (cancellation, a failed
// approval delivery, a sink failure).
func (r *run) call(ctx context.Context, id string, tool tools.Tool, known bool, call ToolCall) (res tools.Result, stopErr error) {
	defer func() {
		if ctx.Err() != nil {
			stopErr = ctxError(ctx)
		} else if stopErr == nil && r.fatal != nil {
			stopErr = r.fatal
		}
	}()
	if !known {
		return tools.Result{Text: TextUnknown, IsError: true, Summary: TextUnknown}, nil
	}
	if ask, summary, reason := r.needsApproval(tool, call.Arguments); ask {
		d, err := approval.Ask(approval.WithRequest(ctx, wholeRequest(tool, call.Arguments, reason)), r.cfg.Approver, r.cfg.Grants, tool.Name(), call.Arguments, summary, reason)
		switch {
		case ctx.Err() != nil:
			d = approval.Cancelled
		case err != nil:
			return tools.Result{Text: TextNotRun, IsError: true, Summary: tool.Name() + ": approval failed"},
				&Error{Code: CodeOf(err, protocol.CodeExecutionFailed), Err: err}
		}
		if d != approval.Allowed {
			// docs/protocol.md, approval.answer: a denied, expired or
			// cancelled request never runs the tool; the summary says who
			// decided (approval.Outcome).
			text, sum := approval.Outcome(tool.Name(), d, reason)
			return tools.Result{Text: text, IsError: true, Summary: sum}, nil
		}
		// The person allowed this call: a read outside the working
		// directory that asked may now run (tools.WithApproved).
		ctx = tools.WithApproved(ctx, tool.Name(), call.Arguments)
	}
	if res, blocked, err := r.preToolUse(ctx, tool.Name(), call.Arguments); err != nil || blocked {
		return res, err
	}
	if rs, ok := r.sink.(RunningSink); ok {
		rs.ToolRunning(id)
	}
	// A tool that streams writes its output live to a sink that shows
	// it; no other tool (nor a call inside this one) gets an Output.
	var live *liveOutput
	if osink, ok := r.sink.(OutputSink); ok {
		if _, streams := tool.(tools.Streaming); streams {
			live = &liveOutput{sink: osink, id: id}
		}
	}
	var out tools.Output
	if live != nil {
		out = live
	}
	res = tool.Run(tools.WithOutput(withReporter(ctx, r), out), call.Arguments)
	if live != nil {
		live.mu.Lock()
		live.flush()
		live.mu.Unlock()
	}
	return res, r.postToolUse(ctx, tool.Name(), call.Arguments, res)
}

func (r *run) toolMessage(call ToolCall, text string) {
	r.add(Message{Role: provider.RoleTool, Text: text, ToolCallID: call.ID, ToolName: call.Name})
}

// specs lists the tools on offer in registry order, then the task tool.
func (r *run) specs() []provider.ToolSpec {
	all := r.cfg.Tools.All()
	specs := make([]provider.ToolSpec, 0, len(all)+1)
	for _, t := range all {
		if r.task != nil && t.Name() == TaskToolName {
			continue // the run's own task tool replaces it
		}
		specs = append(specs, provider.ToolSpec{Name: t.Name(), Description: t.Description(), Schema: t.Schema()})
	}
	if r.task != nil {
		specs = append(specs, provider.ToolSpec{Name: TaskToolName, Description: r.task.Description(), Schema: r.task.Schema()})
	}
	return specs
}

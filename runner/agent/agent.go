package agent

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/tools"
	"github.com/magi-code/magi-code/stages/wire"
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
// It sits above wire.RunSegments so that the spec's 512-segment bound (one
// segment per round at most) is the one a chatty model meets first.
const DefaultMaxRounds = 1024

// Tool results the model sees for calls that did not run normally.
const (
	TextDenied    = "denied by user"
	TextCancelled = "cancelled"
	TextNotRun    = "not run: the run stopped before this call"
	TextUnknown   = "unknown tool"
)

// Approver asks the user to allow one mutating tool call.
type Approver interface {
	// Approve blocks until the user answers or the request expires. It
	// returns false on deny or expiry, and an error when ctx ends (or the
	// request could not be delivered).
	Approve(ctx context.Context, toolName, summary string) (bool, error)
}

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
	ToolStarted(activityID, name, summary string, call ToolCall) error
	// ToolFinished reports its end. summary is safe and short; result is
	// what the model sees (bounded; never for display without redaction).
	// failed is the activity state (error result, denial or cancellation).
	ToolFinished(activityID, name, summary, result string, isError, failed bool) error
}

// Config is what a run needs. Provider and NewID are required in production;
// a nil NewID uses a per-run counter.
type Config struct {
	Provider provider.Provider
	Model    string
	// System is the system context in its documented order (instructions,
	// skills, profiles).
	System []string
	// Tools offered to the model; nil offers none.
	Tools *tools.Set
	// Approval is ApprovalAsk or ApprovalAuto; anything else asks.
	Approval string
	// Approver answers approval requests; nil denies every request.
	Approver Approver
	// NewID returns a fresh run-scoped ID for segments, summaries and
	// activities.
	NewID func() string
	// MaxRounds caps provider calls in this run; 0 means DefaultMaxRounds.
	MaxRounds int
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
	Code wire.Code
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
// modified.
func Run(ctx context.Context, cfg Config, history []Message, prompt string, sink Sink) (Result, error) {
	if cfg.Provider == nil {
		return Result{Outcome: Failed, Code: wire.CodeProviderUnavailable}, &Error{Code: wire.CodeProviderUnavailable, Err: errors.New("no provider")}
	}
	r := &run{cfg: cfg, sink: sink}
	if r.cfg.MaxRounds <= 0 {
		r.cfg.MaxRounds = DefaultMaxRounds
	}
	if r.cfg.NewID == nil {
		n := 0
		r.cfg.NewID = func() string { n++; return "id-" + strconv.Itoa(n) }
	}
	r.emitFn = r.emit
	r.msgs = make([]Message, 0, len(history)+8)
	r.msgs = append(r.msgs, history...)
	r.msgs = append(r.msgs, Message{Role: provider.RoleUser, Text: prompt})
	first := len(history)

	err := r.loop(ctx)

	res := Result{
		Messages:     slices.Clone(r.msgs[first:]),
		ContentBytes: r.content,
		Segments:     r.segments,
		Activities:   r.activities,
	}
	switch {
	case err == nil:
		res.Outcome = Completed
	case errors.Is(err, ErrCancelled):
		res.Outcome = Cancelled
	default:
		res.Outcome = Failed
		res.Code = CodeOf(err, wire.CodeExecutionFailed)
	}
	return res, err
}

// run is the state of one Run call.
type run struct {
	cfg    Config
	sink   Sink
	emitFn func(provider.StreamEvent) error // r.emit, bound once: no allocation per call

	msgs  []Message
	calls []ToolCall // tool calls of the current response

	// The open segment, if any. buf is reused across segments.
	open  bool
	segID string
	buf   []byte

	stop       error // first bound or sink failure seen inside emit
	content    int   // assistant content bytes accepted
	segments   int
	activities int
}

func (r *run) loop(ctx context.Context) error {
	specs := toolSpecs(r.cfg.Tools)
	for round := 0; ; round++ {
		if round >= r.cfg.MaxRounds {
			return errRoundLimit
		}
		if ctx.Err() != nil {
			return ctxError(ctx)
		}
		r.calls = r.calls[:0]
		req := provider.Request{Model: r.cfg.Model, System: r.cfg.System, Messages: r.msgs, Tools: specs}
		perr := r.cfg.Provider.Stream(ctx, req, r.emitFn)

		// Close the segment first: its accepted text is authoritative
		// whatever happened (spec: failure and cancellation keep partial
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
			failure = &Error{Code: CodeOf(perr, wire.CodeExecutionFailed), Err: perr}
		}
		if failure != nil {
			// Calls of a failed response never run: keep only the text.
			if text != "" {
				r.msgs = append(r.msgs, Message{Role: provider.RoleAssistant, Text: text})
			}
			return failure
		}
		calls := slices.Clone(r.calls)
		if text != "" || len(calls) > 0 {
			r.msgs = append(r.msgs, Message{Role: provider.RoleAssistant, Text: text, ToolCalls: calls})
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
		// Spec: "exceeding limits fails with content_limit ... never silent
		// truncation": the delta that would cross the bound is refused whole.
		if r.content+len(ev.Text) > wire.RunContentBytes {
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
		if r.content+len(ev.Text) > wire.RunContentBytes {
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
		if r.activities+len(r.calls) >= wire.RunActivityIDs {
			return r.fail(errActivityLim)
		}
		r.calls = append(r.calls, ev.Call)
	}
	return nil
}

// grow doubles the segment buffer (append grows large slices by only 1.25x,
// which copies a flood's 8 MiB about four times over), never past the run's
// content bound.
func (r *run) grow(n int) {
	size := min(max(2*cap(r.buf), len(r.buf)+n, 4096), max(wire.RunContentBytes, len(r.buf)+n))
	buf := make([]byte, len(r.buf), size)
	copy(buf, r.buf)
	r.buf = buf
}

func (r *run) fail(err error) error {
	if r.stop == nil {
		r.stop = err
	}
	return r.stop
}

func (r *run) startSegment() error {
	if r.segments >= wire.RunSegments {
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
	text := string(r.buf)
	if err := r.sink.SegmentEnd(r.segID, text); err != nil {
		return text, sinkError(err)
	}
	return text, nil
}

// runTool runs one call as one activity and appends its tool message.
func (r *run) runTool(ctx context.Context, call ToolCall) error {
	if r.activities >= wire.RunActivityIDs {
		r.toolMessage(call, TextNotRun)
		return errActivityLim
	}
	r.activities++
	id := r.cfg.NewID()
	tool, known := r.cfg.Tools.Get(call.Name)
	started := TextUnknown
	if known {
		started = tool.Name() + ": started"
	}
	if err := r.sink.ToolStarted(id, call.Name, started, call); err != nil {
		r.toolMessage(call, TextNotRun)
		return sinkError(err)
	}

	var res tools.Result
	var stopErr error // ends the run after the activity is reported
	switch {
	case !known:
		res = tools.Result{Text: TextUnknown, IsError: true, Summary: TextUnknown}
	case tool.Mutating() && r.cfg.Approval != ApprovalAuto:
		allowed, err := r.approve(ctx, tool, call)
		switch {
		case ctx.Err() != nil:
			res = tools.Result{Text: TextCancelled, IsError: true, Summary: tool.Name() + ": cancelled"}
		case err != nil:
			res = tools.Result{Text: TextNotRun, IsError: true, Summary: tool.Name() + ": approval failed"}
			stopErr = &Error{Code: CodeOf(err, wire.CodeExecutionFailed), Err: err}
		case !allowed:
			// Spec: "a denied or expired request is reported to the model
			// as denied and the tool never runs".
			res = tools.Result{Text: TextDenied, IsError: true, Summary: tool.Name() + ": " + TextDenied}
		default:
			res = tool.Run(ctx, call.Arguments)
		}
	default:
		res = tool.Run(ctx, call.Arguments)
	}
	cancelled := ctx.Err() != nil
	if cancelled {
		stopErr = ctxError(ctx)
	}
	ferr := r.sink.ToolFinished(id, call.Name, res.Summary, res.Text, res.IsError, res.IsError || cancelled)
	r.toolMessage(call, res.Text)
	if stopErr != nil {
		return stopErr
	}
	if ferr != nil {
		return sinkError(ferr)
	}
	return nil
}

// approve asks the Approver; without one, every request is denied.
func (r *run) approve(ctx context.Context, tool tools.Tool, call ToolCall) (bool, error) {
	if r.cfg.Approver == nil {
		return false, nil
	}
	return r.cfg.Approver.Approve(ctx, tool.Name(), tool.Describe(call.Arguments))
}

func (r *run) toolMessage(call ToolCall, text string) {
	r.msgs = append(r.msgs, Message{Role: provider.RoleTool, Text: text, ToolCallID: call.ID, ToolName: call.Name})
}

// toolSpecs lists the tools on offer in registry order.
func toolSpecs(set *tools.Set) []provider.ToolSpec {
	all := set.All()
	specs := make([]provider.ToolSpec, len(all))
	for i, t := range all {
		specs[i] = provider.ToolSpec{Name: t.Name(), Description: t.Description(), Schema: t.Schema()}
	}
	return specs
}

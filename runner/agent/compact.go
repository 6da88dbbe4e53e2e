package agent

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider"
)

// Auto-compaction (docs/architecture.md, The agent runner). Before each provider call of the
// primary run, the request is estimated at one token per BytesPerToken
// bytes of system context, messages and tool specs. When the estimate
// reaches CompactPercent of the context window, the run asks the same
// provider (a provider call like any other: it consumes the next fixture
// response) to summarise the conversation, then continues from the
// summary:
//
//   - At the start of a turn (only the user prompt is new), the older
//     conversation is summarised and the prompt is kept verbatim after the
//     summary.
//   - Later in a turn (after tool rounds), everything so far is summarised,
//     the current request and its progress included (the summarisation
//     prompt asks for both), and the conversation goes on from the summary
//     alone. Cutting anywhere else would either split a tool call from its
//     result or leave assistant messages that the replay could not restore.
//
// The summary is stored through Sink.Compaction (a history compaction
// record; Replay starts there) and kept messages are only ever the user
// prompt (replayed after the summary as internal input), so the next
// turn's replay is exactly the live conversation after compaction.
//
// The summarisation prompt is provider-only: it is never stored.
//
// Failure policy: a compaction whose provider call fails, returns no text or
// a summary over MaxSummaryBytes reports activity failed and the run goes on
// uncompacted (the next provider call may still fit; if it does not, the
// provider's own error fails the run). Compaction is not tried again in the
// same run, so a broken provider cannot consume a response per round.
// Cancellation during compaction reports activity failed and ends the run
// cancelled.

// Compaction parameters.
const (
	DefaultContextWindow = 128_000 // tokens, for models ContextWindowFor does not know
	CompactPercent       = 80      // compact when the estimate reaches this share of the window
	BytesPerToken        = 4       // the estimate: one token per 4 bytes
	MaxSummaryBytes      = 64 << 10
	// SummaryPrefix starts the user message that carries a compaction
	// summary, live and in replay (see SummaryMessage).
	SummaryPrefix = "Summary of the earlier conversation:\n"
	// CompactionName is the activity name of a compaction.
	CompactionName = "compaction"
)

// compactPrompt is the internal summarisation request: provider-only.
const compactPrompt = "Summarise the conversation above for your own later use: the context window is nearly full " +
	"and the conversation will continue from your summary alone. Keep the user's goals and current request " +
	"(verbatim where short), decisions made, files and commands involved, results of tool calls that still " +
	"matter, progress so far and what remains to do. Do not call tools. Answer with the summary only."

// compactInstructions introduces the person's own wishes for a forced
// compaction's summary.
const compactInstructions = "\n\nThe user asked for this summary now, with these instructions:\n"

var errEmptySummary = errors.New("agent: empty compaction summary")

// SummaryMessage is the message that stands for a compaction summary in
// the provider conversation. The turn worker's replay uses it too, so that
// the live and replayed conversations are the same.
func SummaryMessage(summary string) Message {
	return Message{Role: provider.RoleUser, Text: SummaryPrefix + summary}
}

// ContextWindowFor returns configured when positive, else the model's
// context window from the bundled model catalog (catalog.go), else
// DefaultContextWindow: an unknown model (a local one, say) is compacted
// early rather than late.
func ContextWindowFor(model string, configured int) int {
	if w := KnownContextWindow(model, configured); w > 0 {
		return w
	}
	return DefaultContextWindow
}

// KnownContextWindow is ContextWindowFor without the default: configured
// when positive, else the catalog's window of model, else 0 (not known).
func KnownContextWindow(model string, configured int) int {
	if configured > 0 {
		return configured
	}
	return catalogWindow(model)
}

// EstimateTokens estimates the size of a request in tokens.
func EstimateTokens(req provider.Request) int {
	n := 0
	for _, s := range req.System {
		n += len(s)
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		n += len(m.Text) + len(m.ToolCallID) + len(m.ToolName) + 8
		for _, c := range m.ToolCalls {
			n += len(c.ID) + len(c.Name) + len(c.Arguments)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	return n / BytesPerToken
}

// maybeCompact compacts the live conversation when it nears the window.
func (r *run) maybeCompact(ctx context.Context, specs []provider.ToolSpec) error {
	if r.compactOff {
		return nil
	}
	est := EstimateTokens(provider.Request{System: r.cfg.System, Messages: r.msgs, Tools: specs})
	if int64(est)*100 < int64(r.window)*CompactPercent {
		return nil
	}
	cut, kept := len(r.msgs), []Message(nil)
	if len(r.turn) == 1 {
		// Start of the turn: keep the prompt, summarise what came before.
		cut--
		kept = []Message{r.msgs[cut]}
	}
	if cut == 0 {
		return nil // nothing older to summarise
	}
	_, stop := r.compact(ctx, specs, cut, kept, "")
	return stop
}

// Compact is a forced compaction (a front door's /compact): the whole
// conversation in history is summarised now through the same path as
// auto-compaction (the same activity, the same Sink.Compaction record with
// nothing kept), whatever its size. instructions, when not blank, are the
// person's wishes for the summary, added to the provider-only
// summarisation prompt. An empty history compacts nothing: Completed, no
// provider call. A failed summary is Failed with the provider's code (a
// diagnostic says why, as for a failed turn); cancellation is Cancelled.
// Result.Messages is always empty: the summary is the new conversation.
func Compact(ctx context.Context, cfg Config, history []Message, instructions string, sink Sink) (Result, error) {
	r, res, err := newPrimary(cfg, sink) // the same tool specs as the turns' requests
	if r == nil {
		return res, err
	}
	r.msgs = slices.Clone(history)
	if len(r.msgs) > 0 {
		var failed error
		failed, err = r.compact(ctx, r.specs(), len(r.msgs), nil, strings.TrimSpace(instructions))
		if err == nil && failed != nil {
			code := CodeOf(failed, protocol.CodeExecutionFailed)
			_ = r.sink.Diagnostic(string(code), ProviderFailureSummary(failed))
			err = &Error{Code: code, Err: failed}
		}
	}
	return r.result(err), err
}

// compact summarises r.msgs[:cut] and replaces it by the summary. failed
// is why a summary could not be had (the conversation is left as it was);
// stop is an error that ends the run (cancellation, a sink failure).
func (r *run) compact(ctx context.Context, specs []provider.ToolSpec, cut int, kept []Message, instructions string) (failed, stop error) {
	id, err := r.newActivity()
	if err != nil {
		return nil, err
	}
	if err := r.sink.Activity(id, KindCompaction, CompactionName, StateStarted, "compacting "+strconv.Itoa(cut)+" messages"); err != nil {
		return nil, sinkError(err)
	}
	summary, perr := r.summarise(ctx, specs, cut, instructions)
	if ctx.Err() != nil || perr != nil {
		r.compactOff = true
		what := "compaction failed"
		if ctx.Err() != nil {
			stop, what = ctxError(ctx), "compaction cancelled"
		}
		if err := r.sink.Activity(id, KindCompaction, CompactionName, StateFailed, what); err != nil && stop == nil {
			stop = sinkError(err)
		}
		return perr, stop
	}
	if err := r.sink.Compaction(summary, kept); err != nil {
		return nil, sinkError(err)
	}
	msgs := make([]Message, 0, 1+len(kept)+8)
	msgs = append(msgs, SummaryMessage(summary))
	r.msgs = append(msgs, kept...)
	if err := r.sink.Activity(id, KindCompaction, CompactionName, StateCompleted,
		"summarised "+strconv.Itoa(cut)+" messages"); err != nil {
		return nil, sinkError(err)
	}
	return nil, nil
}

// summarise asks the provider for a summary of r.msgs[:cut]. The request
// keeps the run's system context and tools (providers may refuse a
// conversation holding tool calls without tool definitions); tool calls
// and reasoning in the answer are ignored.
func (r *run) summarise(ctx context.Context, specs []provider.ToolSpec, cut int, instructions string) (string, error) {
	msgs := make([]Message, 0, cut+1)
	msgs = append(msgs, r.msgs[:cut]...)
	prompt := compactPrompt
	if instructions != "" {
		prompt += compactInstructions + instructions
	}
	msgs = append(msgs, Message{Role: provider.RoleUser, Text: prompt})
	var b strings.Builder
	err := r.cfg.Provider.Stream(ctx, provider.Request{Model: r.cfg.Model, Thinking: r.cfg.Thinking, System: r.cfg.System, Messages: msgs, Tools: specs},
		func(ev provider.StreamEvent) error {
			if ev.Kind == provider.UsageKind {
				return r.usage(ev.Usage, UsageCompaction) // the summary's tokens count too
			}
			if ev.Kind != provider.TextDelta {
				return nil
			}
			if b.Len()+len(ev.Text) > MaxSummaryBytes {
				return errContentLimit
			}
			b.WriteString(ev.Text)
			return nil
		})
	if err != nil {
		return "", err
	}
	summary := strings.TrimSpace(b.String())
	if summary == "" {
		return "", errEmptySummary
	}
	return summary, nil
}

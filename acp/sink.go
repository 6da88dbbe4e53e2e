package acp

import (
	"context"
	"errors"
	"sync"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner"
)

// errOutput cancels a turn whose update could not be queued.
var errOutput = &runner.Error{Code: protocol.CodeOutputUnavailable}

// sink turns the runner's progress into session/update notifications and
// session records. The runner calls it from the turn's goroutine; the
// approver reads the current tool call under mu.
//
// Text is lossless, unlike the local-agent protocol's best-effort deltas:
// ACP v1 can only append, so every safe byte the redaction stream releases
// is sent once, in order, waiting for room on the ordered edge (the
// provider is paced by the client), and the segment's end sends only what
// is still unsent. The concatenated chunks of a message equal its stored
// reply as history shows it (redact.String of the stored text).
type sink struct {
	s   *session
	t   *turn
	ctx context.Context

	stream  redact.Stream
	segment string // the open segment's message ID
	sent    int    // safe bytes of the open segment sent
	buf     []byte // the stream's output, reused

	// log stores the run's records as serve's worker does (the shared
	// persistence: a long reply in chunks while it streams); its ended
	// segment is completed when the next thing happens, or at the run's
	// end (partial unless it completed).
	log   *history.RunLog
	model string // the turn's model, for the usage records

	mu      sync.Mutex
	calls   map[string]*toolState // activity ID -> its tool call
	current *toolState            // the call an approval is for
}

func newSink(s *session, t *turn, ctx context.Context) *sink {
	k := &sink{s: s, t: t, ctx: ctx, calls: map[string]*toolState{}}
	k.log = history.NewRunLog(s.att, t.id, func() error {
		// The turn goes on; its answer's log line says persisted false.
		s.a.opts.Log.Info("acp history append failed", "session_id", s.id, "run_id", t.id)
		return nil
	})
	return k
}

// send queues one frame on the ordered edge; failing that, the turn ends
// with output_unavailable.
func (k *sink) send(frame []byte) error {
	if err := k.s.a.out(frame, true); err != nil {
		if !errors.Is(err, errFrameTooLarge) {
			k.t.cancel(errOutput)
			return errOutput
		}
	}
	return nil
}

func (k *sink) update(u obj) error { return k.send(k.s.a.notify(k.s.id, u)) }

// text sends safe text of kind as chunks of messageID.
func (k *sink) text(kind, messageID, safe string) error {
	for _, part := range textParts(safe) {
		if err := k.send(appendTextChunk(nil, k.s.id, kind, messageID, part)); err != nil {
			return err
		}
	}
	return nil
}

// A failed append degrades the turn's persistence (logged); it does not
// stop the turn: the log's calls return no error here.

// complete stores the ended segment's completion record: complete when
// something else happens, partial or not at the run's end. The text was
// sent while it streamed (SegmentEnd sent the rest).
func (k *sink) complete(partial bool) { _, _, _, _ = k.log.Complete(partial) }

// finish stores what is pending at the run's end.
func (k *sink) finish(partial bool) {
	_ = k.log.Settle()
	k.complete(partial)
}

func (k *sink) SegmentStart(messageID string) {
	k.complete(false)
	k.log.SegmentStart(messageID)
	k.stream = redact.Stream{}
	k.segment, k.sent = messageID, 0
}

func (k *sink) TextDelta(messageID, text string) error {
	_ = k.log.Text(messageID, text)
	k.buf = k.stream.PushTo(k.buf[:0], text)
	if len(k.buf) == 0 {
		return nil
	}
	k.sent += len(k.buf)
	return k.text("agent_message_chunk", messageID, string(k.buf))
}

// SegmentEnd sends what the stream held back, then only the part of the
// reply as stored that is still unsent (the reconcile step of ACP: v1
// cannot replace text, so nothing is sent twice).
func (k *sink) SegmentEnd(messageID, fullText string) error {
	rest := k.stream.Flush()
	safe := redact.String(fullText)
	var err error
	switch {
	case k.sent+len(rest) <= len(safe):
		// Flush equals String of the concatenated deltas: what was sent
		// and the rest are a prefix of the stored reply's safe text.
		err = k.text("agent_message_chunk", messageID, safe[k.sent:])
	case len(rest) > 0:
		err = k.text("agent_message_chunk", messageID, rest)
	}
	k.segment = ""
	_ = k.log.SegmentEnd(messageID, fullText)
	return err
}

func (k *sink) ReasoningSummary(id, text string) error {
	_ = k.log.Append(history.Record{Type: history.TypeReasoningSummary, ID: id, Text: text, ProviderSummary: true})
	mid := id
	if !history.ValidID(mid) {
		mid = k.s.a.opts.NewID()
	}
	return k.text("agent_thought_chunk", mid, redact.String(text))
}

func (k *sink) Diagnostic(code, summary string) error {
	summary = redact.Summary(summary, protocol.SummaryBytes)
	if !protocol.Code(code).Known() {
		code = string(protocol.CodeExecutionFailed)
	}
	k.s.a.opts.Log.Info("diagnostic", "run_id", k.t.id, "code", code, "summary", summary)
	_ = k.log.Mark()
	_ = k.log.Append(history.Record{Type: history.TypeDiagnostic, Code: code, Summary: summary})
	return nil
}

func (k *sink) Compaction(summary string, kept []runner.Message) error {
	k.complete(false)
	_ = k.log.Append(history.Record{Type: history.TypeCompaction, Text: summary})
	for _, m := range kept {
		if m.Role == runner.RoleUser {
			_ = k.log.Append(history.Record{Type: history.TypeInternalInput, Text: m.Text})
		}
	}
	return nil
}

func (k *sink) TaskScope(ceiling string) error {
	_ = k.log.Append(history.Record{Type: history.TypeTaskScope, Ceiling: ceiling})
	return nil
}

// Usage implements runner.UsageSink: usage_update with the tokens the
// conversation uses (input and output of the run's own response; a
// compaction's or a subagent's response is stored only).
func (k *sink) Usage(u runner.Usage, source string) error {
	// Stored as serve stores it (history usage records).
	_, _ = k.log.Usage(source, k.model, u.InputTokens, u.OutputTokens, u.CachedInputTokens, u.ReasoningTokens)
	if source != runner.UsageTurn {
		return nil
	}
	used := max(u.InputTokens, 0) + max(u.OutputTokens, 0)
	return k.update(obj{"sessionUpdate": "usage_update", "used": used, "size": max(k.s.rt.ContextWindow(), used)})
}

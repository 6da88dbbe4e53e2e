package acp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/magi-code/magi-code/acp/jsonrpc"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner"
)

// turn is a session's running prompt.
type turn struct {
	id     string // the run ID
	cancel context.CancelCauseFunc
	done   chan struct{} // closed once the prompt is answered
}

// Stop reasons.
const (
	stopEndTurn   = "end_turn"
	stopCancelled = "cancelled"
	stopMaxTurn   = "max_turn_requests"
	stopMaxTokens = "max_tokens"
)

// cmdCompact is the built-in command that compacts the conversation
// (runner.CompactCommand).
const cmdCompact = runner.CompactName

// prompt starts a turn. Its updates and then its answer go out on the
// ordered edge: nothing of the turn follows the answer. A second prompt
// while one runs is -32600 with busy, and the first is unaffected.
func (a *Agent) prompt(m jsonrpc.Message) {
	var p struct {
		SessionID string            `json:"sessionId"`
		Prompt    []json.RawMessage `json:"prompt"`
	}
	s := a.sessionOf(m, &p, &p.SessionID)
	if s == nil {
		return
	}
	text, code := promptText(p.Prompt)
	if code != "" {
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, code)
		return
	}
	a.mu.Lock()
	closing := a.closed
	a.mu.Unlock()
	s.mu.Lock()
	if closing || s.closed || s.turn != nil {
		s.mu.Unlock()
		a.respondError(m.ID, jsonrpc.CodeInvalidRequest, protocol.CodeBusy)
		return
	}
	ctx, cancel := context.WithCancelCause(a.ctx)
	t := &turn{id: a.opts.NewID(), cancel: cancel, done: make(chan struct{})}
	s.turn = t
	mode, choice := s.mode, s.choice
	s.mu.Unlock()
	a.group.Go(func() {
		defer close(t.done)
		defer cancel(nil)
		frame := s.run(ctx, t, m.ID, text, mode, choice)
		s.mu.Lock()
		s.turn = nil
		s.mu.Unlock()
		// The answer is the turn's last frame, after cleanup.
		_ = a.out(frame, true)
	})
}

// cancelTurn is session/cancel: the running turn is cancelled (the runner
// kills the tool's process group, pending permission requests stop
// waiting); its prompt answers cancelled after cleanup.
func (s *session) cancelTurn() {
	s.mu.Lock()
	t := s.turn
	s.mu.Unlock()
	if t != nil {
		t.cancel(runner.ErrCancelled)
	}
}

// run runs one turn and returns the prompt's answer frame.
func (s *session) run(ctx context.Context, t *turn, id jsonrpc.ID, prompt, mode string, choice runner.Choice) []byte {
	a := s.a
	fail := func(code protocol.Code) []byte { return turnError(id, code) }
	records, code := s.att.Replay()
	if code != "" {
		return fail(code)
	}
	if instructions, ok := runner.CompactCommand(prompt); ok {
		return s.compact(ctx, t, id, records, instructions, choice)
	}
	// The input is stored (fsynced) before the provider is called.
	if _, err := s.att.AppendInput(history.Record{Type: history.TypeInput, RunID: t.id, MessageID: a.opts.NewID(), Text: prompt}); err != nil {
		return fail(protocol.CodePersistenceFailed)
	}
	sink := newSink(s, t, ctx)
	sink.model = s.rt.TurnModel(choice.Model)
	if err := s.titleOnce(prompt); err != nil {
		t.cancel(err)
	}
	approval := runner.ApprovalAsk
	if mode == ModeAuto {
		approval = runner.ApprovalAuto
	}
	// Read-only refuses whatever would ask, granted or not: its turns get
	// no grants.
	grants := s.grants
	if mode == ModeReadOnly {
		grants = nil
	}
	a.opts.Log.Info("acp turn started", "session_id", s.id, "run_id", t.id)
	runCtx := ctx
	if fs := s.clientFS(); fs != nil {
		runCtx = runner.WithClientFS(ctx, fs)
	}
	res, runErr := s.rt.Run(runCtx, runner.Turn{
		Model:      choice.Model,
		Thinking:   choice.Thinking,
		Records:    records,
		Prompt:     prompt,
		TaskScopes: s.att.TaskScopes(),
		Sink:       sink,
		Approver:   &approver{s: s, sink: sink, readOnly: mode == ModeReadOnly},
		Grants:     grants,
		Approval:   approval,
		NewID:      a.opts.NewID,
	})
	return s.answer(ctx, t, id, sink, res, runErr)
}

// compact runs the /compact built-in: the conversation is compacted now
// (runner Compact: the compaction activity, compaction_update when
// advertised, the compaction record) instead of going to the model. The
// command itself is not stored as input, so the next turn's model never
// reads it; nothing to compact answers end_turn at once.
func (s *session) compact(ctx context.Context, t *turn, id jsonrpc.ID, records []history.Record, instructions string, choice runner.Choice) []byte {
	sink := newSink(s, t, ctx)
	s.a.opts.Log.Info("acp compaction started", "session_id", s.id, "run_id", t.id)
	res, runErr := s.rt.Compact(ctx, runner.Turn{
		Model:    choice.Model,
		Thinking: choice.Thinking,
		Records:  records,
		Prompt:   instructions,
		Sink:     sink,
		NewID:    s.a.opts.NewID,
	})
	return s.answer(ctx, t, id, sink, res, runErr)
}

// answer stores the end of a turn and returns the prompt's answer frame.
func (s *session) answer(ctx context.Context, t *turn, id jsonrpc.ID, sink *sink, res runner.Result, runErr error) []byte {
	a := s.a
	fail := func(code protocol.Code) []byte { return turnError(id, code) }
	outcome, code := res.Outcome, res.Code
	if outcome == runner.Failed {
		a.opts.Log.Info("acp turn failure", "session_id", s.id, "run_id", t.id, "error_code", string(code), "detail", runner.FailureDetail(runErr))
	}
	if errors.Is(context.Cause(ctx), errOutput) {
		outcome, code = runner.Failed, protocol.CodeOutputUnavailable
	} else if runErr != nil && outcome == runner.Cancelled {
		code = ""
	}
	sink.finish(outcome != runner.Completed)
	_, err := s.att.Append(history.Record{Type: history.TypeRunCompleted, RunID: t.id, Outcome: string(outcome), ErrorCode: string(code)}, true)
	a.opts.Log.Info("acp turn finished", "session_id", s.id, "run_id", t.id, "outcome", string(outcome), "error_code", string(code),
		"persisted", err == nil && !sink.log.Degraded())
	switch {
	case outcome == runner.Completed && res.MaxTokens:
		// The provider's output token limit ended the last response.
		return jsonrpc.AppendResult(nil, id, []byte(`{"stopReason":"`+stopMaxTokens+`"}`))
	case outcome == runner.Completed:
		return jsonrpc.AppendResult(nil, id, []byte(`{"stopReason":"`+stopEndTurn+`"}`))
	case outcome == runner.Cancelled:
		return jsonrpc.AppendResult(nil, id, []byte(`{"stopReason":"`+stopCancelled+`"}`))
	case code == protocol.CodeContentLimit || (outcome == runner.Failed && errors.Is(runErr, runner.ErrRoundLimit)):
		// The run's own bounds (segments, content, tool calls, model
		// requests per turn).
		return jsonrpc.AppendResult(nil, id, []byte(`{"stopReason":"`+stopMaxTurn+`"}`))
	}
	if code == "" {
		code = protocol.CodeExecutionFailed
	}
	return fail(code)
}

// turnError is a prompt's error answer, data.code holding the stable
// code: -32000, ACP's "authentication required", when the provider refused
// the credential (provider_unavailable during a turn: a rejected or expired
// key, a failed refresh), so that the client offers the auth method (run
// `magi-code login`); -32603 for any other failure.
func turnError(id jsonrpc.ID, code protocol.Code) []byte {
	jcode := jsonrpc.CodeInternalError
	if code == protocol.CodeProviderUnavailable {
		jcode = jsonrpc.CodeAuthRequired
	}
	return jsonrpc.AppendError(nil, id, jcode, code)
}

// titleOnce sends session_info_update once the session is durable (its
// first input stored): the title from the first prompt, and in _meta
// that the session is durable.
func (s *session) titleOnce(prompt string) error {
	s.mu.Lock()
	titled := s.titled
	s.titled = true
	s.mu.Unlock()
	if titled {
		return nil
	}
	title := fitText(oneLine(redact.String(cutRunes(firstLine(prompt), 1024))), 256)
	return s.a.out(s.a.notify(s.id, obj{"sessionUpdate": "session_info_update", "title": title,
		"_meta": obj{"magi-code": obj{"durable": true}}}), true)
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

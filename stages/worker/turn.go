package worker

import (
	"context"
	"errors"
	"slices"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/agent"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/wire"
)

// Event policies of the run-event edge. Spec: "best-effort deltas may drop,
// critical events wait at most 2000 ms".
var (
	deltaPolicy    = backpressure.Drop()
	criticalPolicy = backpressure.Wait(protocol.CriticalEventWait)
)

// errOutputUnavailable cancels a run whose critical event found no room.
var errOutputUnavailable = &agent.Error{Code: protocol.CodeOutputUnavailable}

// activeRun is the one run of the child.
type activeRun struct {
	id, sessionID string
	cancel        context.CancelCauseFunc
	approvals     *approvals
}

// StartTurn starts the one turn worker. The machine has already answered
// turn.start (admission only).
func (p *Pool) StartTurn(ctx context.Context, runID string, tp dispatch.TurnParams, done func()) {
	runCtx, cancel := context.WithCancelCause(ctx)
	r := &activeRun{id: runID, sessionID: tp.SessionID, cancel: cancel,
		approvals: newApprovals(p.opts.Now)}
	p.mu.Lock()
	p.run = r
	p.mu.Unlock()
	p.goWorker(func() {
		defer cancel(nil)
		fin := p.turn(runCtx, r, tp.Prompt)
		r.approvals.closeAll()
		p.mu.Lock()
		if p.run == r {
			p.run = nil
		}
		p.mu.Unlock()
		// Spec: run.finished comes "once, after worker/cleanup accounting":
		// the worker's end is accounted first, so a client that reads
		// run.finished and starts the next turn at once is never busy.
		done()
		if err := p.offer(fin); err != nil {
			// The terminal could not be queued: the client would wait for
			// it forever, and the run would stay active. Never silently.
			p.outputLost()
		}
	})
}

// CancelRun requests cancellation of the active run. Idempotent.
func (p *Pool) CancelRun(runID string) {
	p.mu.Lock()
	r := p.run
	p.mu.Unlock()
	if r != nil && r.id == runID {
		// No approval answer wins once cancellation is acknowledged.
		r.approvals.closeAll()
		r.cancel(agent.ErrCancelled)
	}
}

// Answer hands an approval reply to the active run.
func (p *Pool) Answer(a dispatch.AnswerParams) protocol.Code {
	p.mu.Lock()
	r := p.run
	p.mu.Unlock()
	if r == nil || r.id != a.RunID {
		return protocol.CodeStaleApproval
	}
	return r.approvals.answer(a.ApprovalID, a.Allow)
}

// offer puts one run event on the edge with its policy. A critical event
// that finds no room within 2000 ms is an output failure of the run.
func (p *Pool) offer(e wire.Event) error {
	if !e.Critical() {
		_ = p.opts.Events.OfferWith(context.Background(), e, deltaPolicy)
		return nil
	}
	// Critical events are offered even after cancellation: the terminal
	// event must follow cleanup. The Wait policy bounds the wait.
	if err := p.opts.Events.OfferWith(context.Background(), e, criticalPolicy); err != nil {
		return errOutputUnavailable
	}
	return nil
}

// turn runs one turn and returns its terminal event, which the caller
// offers last.
func (p *Pool) turn(ctx context.Context, r *activeRun, prompt string) wire.Event {
	fin := wire.Event{Name: protocol.EventRunFinished, SessionID: r.sessionID, RunID: r.id}
	finish := func(outcome agent.Outcome, persistence string, code protocol.Code, revision string) wire.Event {
		fin.Outcome, fin.Persistence, fin.ErrorCode = string(outcome), persistence, code
		fin.Revision, fin.HasRevision = revision, revision != ""
		return fin
	}
	rt, att, model := p.runtime(), p.attachment(), p.selectedModel()
	if rt == nil || att == nil || att.ID() != r.sessionID {
		return finish(agent.Failed, "not_started", protocol.CodeSessionMissing, "")
	}
	records, code := att.Replay()
	if code != "" {
		return finish(agent.Failed, "not_started", code, "")
	}
	hist := replayMessages(records)

	// Spec: input.persisted only after the required input append succeeds,
	// before provider execution; its failure is failed/not_started.
	inputID := p.opts.NewID()
	revision, err := att.AppendInput(history.Record{Type: history.TypeInput, RunID: r.id, MessageID: inputID, Text: prompt})
	if err != nil {
		return finish(agent.Failed, "not_started", protocol.CodePersistenceFailed, "")
	}
	if err := p.offer(wire.Event{Name: protocol.EventInputPersisted, SessionID: r.sessionID, RunID: r.id,
		MessageID: inputID, Revision: revision}); err != nil {
		r.cancel(err)
	}

	sink := newTurnSink(p, r, att)
	cfg := agent.Config{
		Provider: rt.provider,
		Model:    model,
		System:   systemContext(rt.snap),
		Tools:    rt.tools.direct,
		Hooks:    rt.hooks,
		Approval: rt.snap.Settings.Tools.Approval,
		Approver: &approver{pool: p, run: r},
		NewID:    p.opts.NewID,
		// Issue 7: auto-compaction, subagents and their stored ceilings.
		ContextWindow: rt.snap.Settings.ContextWindow,
		Subagents:     subagents(rt.snap),
		TaskScopes:    att.TaskScopes(),
	}
	res, runErr := agent.Run(ctx, cfg, hist, prompt, sink)
	outcome, code := res.Outcome, res.Code
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, errOutputUnavailable) {
		outcome, code = agent.Failed, protocol.CodeOutputUnavailable
	} else if runErr != nil && outcome == agent.Cancelled {
		code = ""
	}
	// Reconcile the last segment now that its completeness is known. Spec:
	// "A terminal event must follow required reconciliation": a reconcile
	// that found no room is an output failure of the run.
	if err := sink.flushPending(outcome != agent.Completed); err != nil {
		outcome, code = agent.Failed, protocol.CodeOutputUnavailable
	}

	// Spec: the run's completion record is fsynced before run.finished
	// claims durable; a failed later append yields degraded.
	_, err = att.Append(history.Record{Type: history.TypeRunCompleted, RunID: r.id,
		Outcome: string(outcome), ErrorCode: string(code)}, true)
	if err != nil || sink.degraded {
		return finish(outcome, "degraded", code, "")
	}
	return finish(outcome, "durable", code, att.Revision())
}

// selectedModel is the model of the attached session's restored selection,
// or the startup model.
func (p *Pool) selectedModel() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.model != "" {
		return p.model
	}
	if p.rt != nil {
		return p.rt.snap.Model
	}
	return ""
}

// replayMessages turns stored records into the provider conversation. A
// tool call without a stored result (the child died while the tool ran, or
// the run stopped before its result was stored) is answered with
// agent.TextNotRun, so that the replayed conversation is always a request
// providers accept.
func replayMessages(records []history.Record) []provider.Message {
	var out []provider.Message
	var open []provider.ToolCall // calls of the last assistant message not yet answered
	answerOpen := func() {
		for _, c := range open {
			out = append(out, provider.Message{Role: provider.RoleTool, Text: agent.TextNotRun, ToolCallID: c.ID, ToolName: c.Name})
		}
		open = open[:0]
	}
	for _, rec := range records {
		switch rec.Type {
		case history.TypeInput, history.TypeInternalInput:
			answerOpen()
			out = append(out, provider.Message{Role: provider.RoleUser, Text: rec.Text})
		case history.TypeCompaction:
			answerOpen()
			out = append(out, agent.SummaryMessage(rec.Text))
		case history.TypeAssistant:
			answerOpen()
			out = append(out, provider.Message{Role: provider.RoleAssistant, Text: rec.Text})
		case history.TypeToolCall:
			if n := len(out); n == 0 || out[n-1].Role != provider.RoleAssistant {
				answerOpen()
				out = append(out, provider.Message{Role: provider.RoleAssistant})
			}
			last := &out[len(out)-1]
			call := provider.ToolCall{ID: rec.CallID, Name: rec.Name, Arguments: []byte(rec.Arguments)}
			last.ToolCalls = append(last.ToolCalls, call)
			open = append(open, call)
		case history.TypeToolResult:
			i := slices.IndexFunc(open, func(c provider.ToolCall) bool { return c.ID == rec.CallID })
			if i < 0 {
				continue // a result without its call: nothing to answer
			}
			open = slices.Delete(open, i, i+1)
			out = append(out, provider.Message{Role: provider.RoleTool, Text: rec.Text, ToolCallID: rec.CallID, ToolName: rec.Name})
		}
	}
	answerOpen()
	return out
}

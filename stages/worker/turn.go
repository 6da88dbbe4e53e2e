package worker

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/wire"
)

// errOutputUnavailable cancels a run whose critical event found no room.
var errOutputUnavailable = &runner.Error{Code: protocol.CodeOutputUnavailable}

// activeRun is what the pool holds of the machine's active run: the IDs
// its events carry, its cancellation and its approval requests.
type activeRun struct {
	id, sessionID string
	cancel        context.CancelCauseFunc
	approvals     *approvals
	// taken counts the run's deltas the writer has encoded (EventTaken):
	// the turn sink reuses the memory of delta texts that are all taken.
	taken atomic.Uint64
}

// StartTurn starts the one turn worker. The machine has already answered
// turn.start (admission only).
func (p *Pool) StartTurn(ctx context.Context, runID string, tp dispatch.TurnParams, done func()) {
	runCtx, cancel := context.WithCancelCause(ctx)
	r := &activeRun{id: runID, sessionID: tp.SessionID, cancel: cancel,
		approvals: newApprovals(p.opts.Now)}
	p.run.Store(r)
	p.goWorker(func() {
		defer cancel(nil)
		began := p.opts.Now()
		p.opts.Log.Info("turn started", "session_id", r.sessionID, "run_id", r.id)
		p.opts.Log.Debug("turn prompt", "run_id", r.id, "prompt", tp.Prompt)
		fin := p.turn(runCtx, r, tp.Prompt)
		p.opts.Log.Info("turn finished", "run_id", r.id, "outcome", fin.Outcome, "persistence", fin.Persistence,
			"error_code", string(fin.ErrorCode), "duration_ms", p.opts.Now().Sub(began).Milliseconds())
		r.approvals.closeAll()
		p.run.CompareAndSwap(r, nil)
		// docs/protocol.md, Run events: run.finished comes "once, after worker/cleanup accounting":
		// the worker's end is accounted first, so a client that reads
		// run.finished and starts the next turn at once is never busy.
		done()
		if err := p.offer(fin); err != nil {
			// The terminal could not be queued: the client would wait for
			// it forever, and the run would stay active. Never silently.
			p.opts.Fail(ErrRunFinishedLost)
		}
	})
}

// CancelRun requests cancellation of the active run, which the machine
// has checked runID names. Idempotent; nothing to do once the worker ended.
func (p *Pool) CancelRun(string) {
	if r := p.run.Load(); r != nil {
		// No approval answer wins once cancellation is acknowledged.
		r.approvals.closeAll()
		r.cancel(runner.ErrCancelled)
	}
}

// Answer records an approval reply for the active run, which the machine
// has checked a.RunID names. The run's registry decides whether the
// approval is still open (stale_approval otherwise, also once the worker
// ended); a winning reply reaches the waiting tool call when deliver runs.
func (p *Pool) Answer(a dispatch.AnswerParams) (protocol.Code, func()) {
	r := p.run.Load()
	if r == nil {
		return protocol.CodeStaleApproval, nil
	}
	return r.approvals.answer(a.ApprovalID, answered(a))
}

// EventTaken is the writer's notice that it has encoded a run event into
// its output: nothing reads the event's texts any more. A delta of the
// active run counts toward the reuse of its texts' memory (the turn sink's
// carry). It is called on the writer's goroutine, once per event taken, in
// the event edge's order; it must not block.
func (p *Pool) EventTaken(e *wire.Event) {
	if e.Name != protocol.EventMessageDelta {
		return
	}
	if r := p.run.Load(); r != nil && r.id == e.RunID {
		r.taken.Add(1)
	}
}

// offer puts one run event on the edge under the edge's policy
// (EventPolicy): a delta that finds no room is dropped and counted; a
// critical event that finds no room within 2000 ms is an output failure of
// the run. Critical events are offered even after the run's cancellation
// (the terminal event must follow cleanup), but not after the process's:
// Output ends the wait.
func (p *Pool) offer(e wire.Event) error {
	if err := p.opts.Events.Offer(p.opts.Output, e); err != nil && e.Critical() {
		return errOutputUnavailable
	}
	return nil
}

// turn runs one turn and returns its terminal event, which the caller
// offers last.
func (p *Pool) turn(ctx context.Context, r *activeRun, prompt string) wire.Event {
	fin := wire.Event{Name: protocol.EventRunFinished, SessionID: r.sessionID, RunID: r.id}
	finish := func(outcome runner.Outcome, persistence string, code protocol.Code, revision string) wire.Event {
		fin.Outcome, fin.Persistence, fin.ErrorCode = string(outcome), persistence, code
		fin.Revision, fin.HasRevision = revision, revision != ""
		return fin
	}
	// The machine admitted the turn for the attached session.
	rt, att, choice := p.runtime(), p.attachment(), p.restoredChoice()
	grants := p.sessionGrants()
	if rt == nil || att == nil {
		return finish(runner.Failed, "not_started", protocol.CodeSessionMissing, "")
	}
	records, code := att.Replay()
	if code != "" {
		return finish(runner.Failed, "not_started", code, "")
	}

	// The compact capability: a /compact prompt compacts the conversation
	// now (runner Compact) instead of a turn; the command is not stored,
	// so no input.persisted (docs/protocol.md, Optional capabilities).
	run := rt.runner.Run
	if instructions, ok := runner.CompactCommand(prompt); ok && p.compact.Load() {
		run, prompt = rt.runner.Compact, instructions
		p.opts.Log.Info("compaction asked", "run_id", r.id)
	} else {
		// docs/protocol.md, Run events: input.persisted only after the required input append succeeds,
		// before provider execution; its failure is failed/not_started.
		inputID := p.opts.NewID()
		revision, err := att.AppendInput(history.Record{Type: history.TypeInput, RunID: r.id, MessageID: inputID, Text: prompt})
		if err != nil {
			return finish(runner.Failed, "not_started", protocol.CodePersistenceFailed, "")
		}
		if err := p.offer(wire.Event{Name: protocol.EventInputPersisted, SessionID: r.sessionID, RunID: r.id,
			MessageID: inputID, Revision: revision}); err != nil {
			r.cancel(err)
		}
	}

	sink := newTurnSink(p, r, att)
	sink.model = rt.runner.TurnModel(choice.Model)
	sink.window = rt.runner.KnownContextWindow(choice.Model)
	res, runErr := run(ctx, runner.Turn{
		Model:      choice.Model,
		Thinking:   choice.Thinking,
		Records:    records,
		Prompt:     prompt,
		TaskScopes: att.TaskScopes(),
		Sink:       sink,
		Approver:   &approver{pool: p, run: r, sink: sink},
		Grants:     grants,
		NewID:      p.opts.NewID,
	})
	if p.opts.Log.Enabled(ctx, slog.LevelDebug) {
		// Debug only: replies and tool output (redacted by the log).
		for _, m := range res.Messages {
			p.opts.Log.Debug("turn message", "run_id", r.id, "role", m.Role, "tool", m.ToolName, "text", m.Text)
		}
	}
	// Every segment ended (the runner closes the open one on any path);
	// should one not have, no delta follows the run's end.
	sink.stopIdle()
	outcome, code := res.Outcome, res.Code
	if outcome == runner.Failed {
		// What a failure's message sends the person to `magi-code logs`
		// for (redacted by the log).
		p.opts.Log.Info("turn failure", "run_id", r.id, "error_code", string(code), "detail", runner.FailureDetail(runErr))
	}
	if cause := context.Cause(ctx); cause != nil && errors.Is(cause, errOutputUnavailable) {
		outcome, code = runner.Failed, protocol.CodeOutputUnavailable
	} else if runErr != nil && outcome == runner.Cancelled {
		code = ""
	}
	// The sink's chunk append in flight lands before anything else; a
	// failure it reports needs the diagnostic event, which found no room.
	if err := sink.settle(); err != nil {
		outcome, code = runner.Failed, protocol.CodeOutputUnavailable
	}
	// Reconcile the last segment now that its completeness is known. docs/protocol.md, Run events:
	// "A terminal event must follow required reconciliation": a reconcile
	// that found no room is an output failure of the run.
	if err := sink.flushPending(outcome != runner.Completed); err != nil {
		outcome, code = runner.Failed, protocol.CodeOutputUnavailable
	}

	// docs/protocol.md, Run events: the run's completion record is fsynced before run.finished
	// claims durable; a failed later append yields degraded.
	_, err := att.Append(history.Record{Type: history.TypeRunCompleted, RunID: r.id,
		Outcome: string(outcome), ErrorCode: string(code)}, true)
	if err != nil || sink.log.Degraded() {
		return finish(outcome, "degraded", code, "")
	}
	return finish(outcome, "durable", code, att.Revision())
}

// sessionGrants is the attached session's exact-call grants: nil (none)
// unless the client required the approval.session capability.
func (p *Pool) sessionGrants() *runner.Grants {
	if !p.scoped.Load() {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.grants
}

// restoredChoice is the model and thinking level of the attached session
// (runner.Choice).
func (p *Pool) restoredChoice() runner.Choice {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.choice
}

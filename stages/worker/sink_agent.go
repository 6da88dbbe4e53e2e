package worker

import (
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner"
)

// The turn sink's side of the runner's activity kinds, diagnostics,
// compactions and task scopes. Each is persisted as its history
// record and, where the protocol has an event for it, emitted.

// Activity implements runner.Sink: subagent, compaction and nested tool
// activities. docs/protocol.md, Run events: activity summary "at most 1024 UTF-8 bytes; no raw
// params/results" (redacted by activityOf).
func (s *turnSink) Activity(activityID, kind, name, state, summary string) error {
	// The previous segment is complete once something else happens.
	if err := s.flushPending(false); err != nil {
		return err
	}
	return s.activityOf(kind, activityID, name, state, summary)
}

// Diagnostic implements runner.Sink. docs/protocol.md, Run events: diagnostic "redacted summary at
// most 1024 bytes".
func (s *turnSink) Diagnostic(code, summary string) error {
	summary = redact.Summary(summary, protocol.SummaryBytes)
	if !protocol.Code(code).Known() {
		// Clients fail closed on unknown codes: a runner-specific code
		// (hook_failed) becomes execution_failed; the summary says what failed.
		code = string(protocol.CodeExecutionFailed)
	}
	s.p.opts.Log.Info("diagnostic", "run_id", s.r.id, "code", code, "summary", summary)
	if err := s.log.Mark(); err != nil {
		return err
	}
	if err := s.persist(history.Record{Type: history.TypeDiagnostic, Code: code, Summary: summary}); err != nil {
		return err
	}
	e := s.event(protocol.EventDiagnostic)
	e.Code, e.Summary = code, summary
	return s.p.offer(e)
}

// Compaction implements runner.Sink: the summary becomes a compaction
// record (history pages show a compaction entry; Replay starts there), and
// the kept user prompt is stored after it as internal input, which the
// replay sends and the pages never show (it is already shown once, as the
// turn's input).
func (s *turnSink) Compaction(summary string, kept []runner.Message) error {
	if err := s.flushPending(false); err != nil {
		return err
	}
	if err := s.persist(history.Record{Type: history.TypeCompaction, Text: summary}); err != nil {
		return err
	}
	for _, m := range kept {
		if m.Role != runner.RoleUser {
			continue // runner.Sink: kept holds only user messages
		}
		if err := s.persist(history.Record{Type: history.TypeInternalInput, Text: m.Text}); err != nil {
			return err
		}
	}
	return nil
}

// TaskScope implements runner.Sink. docs/protocol.md, session.open: "Attachment retains stored
// delegated task-scope ceilings."
func (s *turnSink) TaskScope(ceiling string) error {
	return s.persist(history.Record{Type: history.TypeTaskScope, Ceiling: ceiling})
}

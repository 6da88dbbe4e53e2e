package clienttest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/protocol"
)

// InputPersisted is the data of input.persisted beyond the IDs.
type InputPersisted struct {
	MessageID string `json:"message_id"`
	Durable   bool   `json:"durable"`
	Revision  string `json:"revision"`
}

// RunFinished is the data of run.finished beyond the IDs.
type RunFinished struct {
	Outcome     string  `json:"outcome"`
	Persistence string  `json:"persistence"`
	Revision    *string `json:"revision"`
	ErrorCode   *string `json:"error_code"`
}

// TextEvent is the data of message.delta and message.reconcile (LastPart
// and Partial are reconcile's only).
type TextEvent struct {
	MessageID string `json:"message_id"`
	Part      int    `json:"part"`
	Text      string `json:"text"`
	LastPart  bool   `json:"last_part"`
	Partial   bool   `json:"partial"`
}

// Activity is the data of an activity event.
type Activity struct {
	ActivityID string `json:"activity_id"`
	Kind       string `json:"kind"`
	State      string `json:"state"`
	Name       string `json:"name"`
	Summary    string `json:"summary"`
}

// ApprovalRequested is the data of approval.requested.
type ApprovalRequested struct {
	ApprovalID  string `json:"approval_id"`
	Summary     string `json:"summary"`
	ExpiresInMs int64  `json:"expires_in_ms"`
}

// Message is one reconciled assistant message: its reconcile parts joined.
type Message struct {
	ID      string
	Text    string
	Partial bool // the partial flag of its last part
}

// Run is the checked event sequence of one run (CheckRun).
type Run struct {
	ID     string
	Events []client.Event
	// Persisted is the input.persisted data; zero when the run has none.
	Persisted InputPersisted
	Finished  RunFinished
	// Messages are the reconciled assistant messages, in order of their
	// first reconcile part.
	Messages []Message
	// Activities are the activity events' data, in order.
	Activities []Activity
	// anyPartial is whether any reconcile part was partial.
	anyPartial bool
}

// Reply is the concatenation of the reconciled assistant messages.
func (r Run) Reply() string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Text)
	}
	return b.String()
}

// Partial reports whether any reconcile part of the run was partial.
func (r Run) Partial() bool { return r.anyPartial }

// Count is the number of the run's events named name.
func (r Run) Count(name string) int {
	n := 0
	for _, ev := range r.Events {
		if ev.Name == name {
			n++
		}
	}
	return n
}

// Diagnostics returns the codes of the run's diagnostics, in order.
func (r Run) Diagnostics() []string {
	var out []string
	for _, ev := range r.Events {
		if ev.Name == protocol.EventDiagnostic {
			var d struct {
				Code string `json:"code"`
			}
			_ = ev.Decode(&d)
			out = append(out, d.Code)
		}
	}
	return out
}

// Terminal is the run.finished data as sent, for failure messages.
func (r Run) Terminal() string { return string(r.Events[len(r.Events)-1].Data) }

// WantOutcome requires run.finished's outcome and error_code ("" for null).
func (r Run) WantOutcome(t testing.TB, outcome, errorCode string) {
	t.Helper()
	got := ""
	if r.Finished.ErrorCode != nil {
		got = *r.Finished.ErrorCode
	}
	if r.Finished.Outcome != outcome || got != errorCode {
		t.Fatalf("run.finished %s; want outcome %s, error_code %q", r.Terminal(), outcome, errorCode)
	}
}

// CheckRun checks the protocol's order and chunk rules on the events of run
// runID (see checkRun) and returns the run; a violation fails t.
func CheckRun(t testing.TB, sessionID, runID string, admission *client.Response, evs []client.Event) Run {
	t.Helper()
	r, err := checkRun(sessionID, runID, admission, evs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// compactionRun reports whether evs are a /compact run of the optional
// compact capability (docs/protocol.md, Optional capabilities): a
// compaction activity and no text nor other activity, so no
// input.persisted and yet a durable end. (A /compact with nothing to
// compact, run.finished alone, is not told from a version 1 run that lost
// its input.persisted: the check refuses it.)
func compactionRun(evs []client.Event) bool {
	compacted := false
	for _, ev := range evs {
		switch ev.Name {
		case protocol.EventActivity:
			var a Activity
			if ev.Decode(&a) != nil || a.Kind != "compaction" {
				return false
			}
			compacted = true
		case protocol.EventDiagnostic, protocol.EventRunFinished, protocol.EventUsage:
		default:
			return false
		}
	}
	return compacted
}

// checkRun checks one run's events:
//   - every event carries sessionID and runID, and follows the admission
//     response (when given) in seq;
//   - input.persisted, when present, is first, durable, with a message ID
//     and a revision; without it the run is persistence=not_started, or a
//     compaction run (compactionRun);
//   - run.finished is last and only last;
//   - delta and reconcile texts are valid UTF-8 of at most 4,000 bytes;
//     delta parts increase per message; reconcile parts of a message are
//     contiguous from 0, not interleaved with another message's, and end
//     with last_part;
//   - activity summaries are valid UTF-8 of at most 1024 bytes.
func checkRun(sessionID, runID string, admission *client.Response, evs []client.Event) (Run, error) {
	r := Run{ID: runID, Events: evs}
	if len(evs) == 0 {
		return r, errors.New("no events")
	}
	for i, ev := range evs {
		if ev.SessionID != sessionID || ev.RunID != runID {
			return r, fmt.Errorf("event %d %s: session %q run %q; want %q %q", i, ev.Name, ev.SessionID, ev.RunID, sessionID, runID)
		}
		if admission != nil && ev.Seq <= admission.Seq {
			return r, fmt.Errorf("event %s seq %d precedes turn.start response seq %d", ev.Name, ev.Seq, admission.Seq)
		}
		if ev.Name == protocol.EventRunFinished && i != len(evs)-1 {
			return r, fmt.Errorf("run.finished at %d of %d events", i, len(evs))
		}
		if ev.Name == protocol.EventInputPersisted && i != 0 {
			return r, fmt.Errorf("input.persisted at %d, after %s", i, evs[0].Name)
		}
	}
	last := evs[len(evs)-1]
	if last.Name != protocol.EventRunFinished {
		return r, fmt.Errorf("last event %s", last.Name)
	}
	if err := last.Decode(&r.Finished); err != nil {
		return r, fmt.Errorf("run.finished %s: %v", last.Data, err)
	}
	if evs[0].Name == protocol.EventInputPersisted {
		if err := evs[0].Decode(&r.Persisted); err != nil {
			return r, fmt.Errorf("input.persisted %s: %v", evs[0].Data, err)
		}
		if !r.Persisted.Durable || r.Persisted.Revision == "" || r.Persisted.MessageID == "" {
			return r, fmt.Errorf("input.persisted %s", evs[0].Data)
		}
	} else if r.Finished.Persistence != "not_started" && !compactionRun(evs) {
		return r, fmt.Errorf("first event %s, persistence %s", evs[0].Name, r.Finished.Persistence)
	}

	deltaNext := map[string]int{}
	recon := map[string]int{} // next reconcile part per message; -1 once complete
	for _, ev := range evs {
		switch ev.Name {
		case protocol.EventActivity:
			var a Activity
			if err := ev.Decode(&a); err != nil {
				return r, fmt.Errorf("activity %s: %v", ev.Data, err)
			}
			if len(a.Summary) > protocol.SummaryBytes || !utf8.ValidString(a.Summary) {
				return r, fmt.Errorf("activity summary of %d bytes, valid UTF-8 %v", len(a.Summary), utf8.ValidString(a.Summary))
			}
			r.Activities = append(r.Activities, a)
			continue
		case protocol.EventMessageDelta, protocol.EventMessageReconcile:
		default:
			continue
		}
		var te TextEvent
		if err := ev.Decode(&te); err != nil {
			return r, fmt.Errorf("%s %s: %v", ev.Name, ev.Data, err)
		}
		if !utf8.ValidString(te.Text) || len(te.Text) > protocol.LiveChunkBytes {
			return r, fmt.Errorf("%s part %d: %d bytes, valid UTF-8 %v", ev.Name, te.Part, len(te.Text), utf8.ValidString(te.Text))
		}
		if ev.Name == protocol.EventMessageDelta {
			if te.Part < deltaNext[te.MessageID] {
				return r, fmt.Errorf("delta part %d after %d", te.Part, deltaNext[te.MessageID]-1)
			}
			deltaNext[te.MessageID] = te.Part + 1
			continue
		}
		want, seen := recon[te.MessageID]
		if want < 0 || te.Part != want {
			return r, fmt.Errorf("reconcile of %s: part %d, want %d", te.MessageID, te.Part, want)
		}
		if !seen {
			r.Messages = append(r.Messages, Message{ID: te.MessageID})
		}
		m := &r.Messages[len(r.Messages)-1]
		if m.ID != te.MessageID {
			return r, fmt.Errorf("reconcile parts of %s interleaved with %s", m.ID, te.MessageID)
		}
		m.Text += te.Text
		m.Partial = te.Partial
		r.anyPartial = r.anyPartial || te.Partial
		recon[te.MessageID] = te.Part + 1
		if te.LastPart {
			recon[te.MessageID] = -1
		}
	}
	for id, next := range recon {
		if next >= 0 {
			return r, fmt.Errorf("reconcile of %s ended without last_part", id)
		}
	}
	return r, nil
}

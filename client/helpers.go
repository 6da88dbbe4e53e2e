package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/magi-code/magi-code/protocol"
)

// Decode unmarshals the event's data into v.
func (e Event) Decode(v any) error { return json.Unmarshal(e.Data, v) }

// EventData holds the data fields of every run event, one per key
// (docs/protocol.md, Run events); a key the event does not carry stays
// zero. Revision and ErrorCode are nil where the frame holds null.
type EventData struct {
	MessageID   string `json:"message_id"`
	Part        int    `json:"part"`
	Text        string `json:"text"`
	LastPart    bool   `json:"last_part"`
	Partial     bool   `json:"partial"`
	ActivityID  string `json:"activity_id"`
	Kind        string `json:"kind"`
	State       string `json:"state"`
	Name        string `json:"name"`
	Summary     string `json:"summary"`
	Code        string `json:"code"`
	ApprovalID  string `json:"approval_id"`
	ExpiresInMs int64  `json:"expires_in_ms"`
	// SessionGrant (approval.session, an optional capability): the
	// approval may be answered for the session.
	SessionGrant bool `json:"session_grant"`
	// Request and RequestTruncated (approval.request, an optional
	// capability): the whole request redacted, and whether it was cut at
	// its bound.
	Request          string  `json:"request"`
	RequestTruncated bool    `json:"request_truncated"`
	Outcome          string  `json:"outcome"`
	Persistence      string  `json:"persistence"`
	Revision         *string `json:"revision"`
	ErrorCode        *string `json:"error_code"`
	// activity.output (an optional capability): Chunk counts from 0, Last
	// marks an activity's last chunk, Truncated one whose output went on.
	Chunk     int  `json:"chunk"`
	Last      bool `json:"last"`
	Truncated bool `json:"truncated"`
}

// Fields decodes the event's data.
func (e Event) Fields() (EventData, error) {
	var d EventData
	err := json.Unmarshal(e.Data, &d)
	return d, err
}

// WaitEvent receives events until pred accepts one and returns it. Events
// it skips are consumed. It fails when ctx ends or the output ends first.
func (c *Client) WaitEvent(ctx context.Context, pred func(Event) bool) (Event, error) {
	for {
		select {
		case ev, ok := <-c.events:
			if !ok {
				return Event{}, c.closedErr()
			}
			if pred(ev) {
				return ev, nil
			}
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// CollectRun receives the events of run runID until its run.finished,
// which is the last element. An event of another run before it is an
// error: the protocol allows one active run per child.
func (c *Client) CollectRun(ctx context.Context, runID string) ([]Event, error) {
	var evs []Event
	for {
		select {
		case ev, ok := <-c.events:
			if !ok {
				return evs, c.closedErr()
			}
			if ev.RunID != runID {
				return evs, fmt.Errorf("client: event %s of run %q while collecting run %q", ev.Name, ev.RunID, runID)
			}
			evs = append(evs, ev)
			if ev.Name == protocol.EventRunFinished {
				return evs, nil
			}
		case <-ctx.Done():
			return evs, ctx.Err()
		}
	}
}

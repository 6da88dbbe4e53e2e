package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/magi-code/magi-code/protocol"
)

// Decode unmarshals the event's data into v.
func (e Event) Decode(v any) error { return json.Unmarshal(e.Data, v) }

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

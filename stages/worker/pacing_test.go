package worker

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// pacingSink returns a turn sink whose event edge is full (nothing reads
// it).
func pacingSink(t *testing.T) (*turnSink, *backpressure.Queue[wire.Event]) {
	t.Helper()
	events := backpressure.NewMixed("run-events", protocol.WorkerEvents, EventPolicy, backpressure.System)
	p := NewPool(Options{NewID: func() string { return "id" }, Now: time.Now, Events: events})
	store := history.NewStore(t.TempDir(), t.TempDir(), time.Now)
	att, code := store.Create("pacing-session", history.Selection{Provider: "fixture", Model: "fixture-model"})
	if code != "" {
		t.Fatal(code)
	}
	t.Cleanup(func() { att.Close() })
	if _, err := att.AppendInput(history.Record{Type: history.TypeInput, RunID: "run-1", MessageID: "input-1", Text: "flood"}); err != nil {
		t.Fatal(err)
	}
	_, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	r := &activeRun{id: "run-1", sessionID: "pacing-session", cancel: cancel, approvals: newApprovals(p.opts.Now)}
	for events.Len() < events.Cap() {
		if err := events.Offer(context.Background(), wire.Event{Name: protocol.EventMessageDelta, Text: "queued"}); err != nil {
			t.Fatal(err)
		}
	}
	s := newTurnSink(p, r, att)
	t.Cleanup(s.stopIdle)
	s.SegmentStart("msg-1")
	return s, events
}

// text is longer than what the redactor holds back, so that some of it is
// offered at once.
var text = strings.Repeat("0123456789", 100)

// TestDeltaPacing: a delta that finds the event edge full waits deltaGrace
// for room, and is sent as its own frame when room comes (a reader that
// keeps reading paces the provider); with no room within the grace it
// coalesces.
func TestDeltaPacing(t *testing.T) {
	t.Run("no room: wait the grace, then coalesce", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, _ := pacingSink(t)
			start := time.Now()
			if err := s.TextDelta("msg-1", text); err != nil {
				t.Fatal(err)
			}
			if waited := time.Since(start); waited != deltaGrace || !s.pacing.Behind() || s.carry.Len() == 0 {
				t.Fatalf("waited %v, behind %v, carried %d; want %v, true, some", waited, s.pacing.Behind(), s.carry.Len(), deltaGrace)
			}
		})
	})
	t.Run("room within the grace: one frame per delta", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, events := pacingSink(t)
			go func() {
				time.Sleep(deltaGrace - time.Millisecond) // the writer runs late
				<-events.C()
			}()
			if err := s.TextDelta("msg-1", text); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			if s.pacing.Behind() || s.carry.Len() != 0 || s.deltaPart != 1 || events.Len() != events.Cap() {
				t.Fatalf("behind %v, carried %d, parts %d, queued %d; want false, 0, 1, %d",
					s.pacing.Behind(), s.carry.Len(), s.deltaPart, events.Len(), events.Cap())
			}
		})
	})
}

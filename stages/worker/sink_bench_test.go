package worker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/internal/benchcpu"

	"github.com/magi-code/magi-code/history"
)

// benchSink returns a sink of a durable session whose event edge a
// goroutine drains as fast as it can (a reader that keeps up).
func benchSink(b *testing.B) *turnSink {
	b.Helper()
	p, q := newTestPool(&testing.T{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for range q.C() {
		}
	}()
	store := history.NewStore(b.TempDir(), b.TempDir(), time.Now)
	att, code := store.Create("bench-session", history.Selection{Provider: "fixture", Model: "fixture-model"})
	if code != "" {
		b.Fatal(code)
	}
	if _, err := att.AppendInput(history.Record{Type: history.TypeInput, RunID: "run-1", MessageID: "input-1", Text: "flood"}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		att.Close()
		q.Close()
		<-drained
	})
	_, cancel := context.WithCancelCause(context.Background())
	b.Cleanup(func() { cancel(nil) })
	r := &activeRun{id: "run-1", sessionID: "bench-session", cancel: cancel, approvals: newApprovals(p.opts.Now)}
	s := newTurnSink(p, r, att)
	b.Cleanup(s.stopIdle) // before the edge closes: no delta after it
	return s
}

// BenchmarkSinkTextDelta is the turn sink's share of a delta flood: one
// 100-byte delta in (redaction, pacing, the event offered to a drained
// edge, a stored chunk every 16 KiB), per op.
func BenchmarkSinkTextDelta(b *testing.B) {
	s := benchSink(b)
	text := strings.Repeat("0123456789", 10)
	s.SegmentStart("msg-1")
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if err := s.TextDelta("msg-1", text); err != nil {
			b.Fatal(err)
		}
	}
}

//go:build unix

package writer

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/benchcpu"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// benchRun starts Run for a benchmark and returns a stop function that
// closes events and waits for the drain.
func benchRun(b *testing.B, w *Writer, events chan wire.Event) (stop func()) {
	done := make(chan error, 1)
	go func() { done <- w.Run(context.Background(), events, nil) }()
	return func() {
		close(events)
		if err := <-done; err != nil {
			b.Fatalf("Run = %v", err)
		}
	}
}

// BenchmarkRespondRoundTrip: one status response, Respond to the peer's
// read of its LF, through a real pipe. The response goes out inline.
func BenchmarkRespondRoundTrip(b *testing.B) {
	r, out := newPipe(b)
	w := newWriter(b, out, Options{})
	stop := benchRun(b, w, make(chan wire.Event))
	br := bufio.NewReaderSize(r, 64<<10)
	resp := &wire.Response{ID: "r-000001", Result: []byte(`{"state":"idle","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"0123456789abcdef","session_id":null,"run_id":null}`)}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Respond(resp); err != nil {
			b.Fatal(err)
		}
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	stop()
	s := w.Stats()
	b.ReportMetric(float64(s.Inline)/float64(s.Frames), "inline/frame")
}

// BenchmarkEventFlood: 100-byte deltas through the events channel to a
// fast reader; one op is one frame.
func BenchmarkEventFlood(b *testing.B) {
	r, out := newPipe(b)
	w := newWriter(b, out, Options{})
	events := make(chan wire.Event, protocol.WorkerEvents)
	drained := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(io.Discard, r)
		drained <- n
	}()
	stop := benchRun(b, w, events)
	e := wire.Event{Name: protocol.EventMessageDelta, SessionID: "0f8fad5b-d9cb-469f-a165-70867728950e", RunID: "7c9e6679-7425-40de-944b-e07fc1f90ae7", MessageID: "m-0001", Text: strings.Repeat("abcdefghij", 10)}
	b.ReportAllocs()
	defer benchcpu.Start(b)() // the reader's CPU included
	for b.Loop() {
		e.Part++
		events <- e
	}
	stop()
	out.Close()
	bytes := <-drained
	s := w.Stats()
	b.SetBytes(bytes / int64(s.Frames))
	b.ReportMetric(float64(s.Frames)/b.Elapsed().Seconds(), "frames/s")
	b.ReportMetric(float64(s.Frames)/float64(s.Writes), "frames/write")
}

// BenchmarkRespondBurst: 32 responses of 4 KiB enqueued back to back (as
// pipelined requests complete), then read by the peer; one op is one frame.
// 32 such frames overfill the 64 KiB pipe, so responses queue behind the
// inline ones and Run writes them in batches: frames/write above 1 means
// pending frames shared a write(2).
func BenchmarkRespondBurst(b *testing.B) {
	r, out := newPipe(b)
	w := newWriter(b, out, Options{})
	stop := benchRun(b, w, make(chan wire.Event))
	br := bufio.NewReaderSize(r, 64<<10)
	resp := &wire.Response{ID: "r-000001", Result: []byte(`"` + strings.Repeat("b", 4000) + `"`)}
	b.ReportAllocs()
	frames := 0
	for b.Loop() {
		if err := w.Respond(resp); err != nil && !errors.Is(err, ErrStopped) {
			b.Fatal(err)
		}
		frames++
		if frames%protocol.PendingOutputFrames == 0 {
			for range protocol.PendingOutputFrames {
				if _, err := br.ReadSlice('\n'); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	for range frames % protocol.PendingOutputFrames {
		br.ReadSlice('\n')
	}
	stop()
	s := w.Stats()
	b.ReportMetric(float64(s.Frames)/float64(s.Writes), "frames/write")
}

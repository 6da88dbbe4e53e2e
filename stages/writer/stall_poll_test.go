//go:build unix

package writer

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/magi-code/magi-code/stages/wire"
)

// countingOutput is a pipe's write end whose RawConn counts how often the
// writer's write callback runs inside RawConn.Write: once per wake-up of a
// write parked in the poller.
type countingOutput struct {
	*os.File
	calls atomic.Int64
}

func (o *countingOutput) SyscallConn() (syscall.RawConn, error) {
	raw, err := o.File.SyscallConn()
	if err != nil {
		return nil, err
	}
	return countingConn{raw, &o.calls}, nil
}

type countingConn struct {
	syscall.RawConn
	calls *atomic.Int64
}

func (c countingConn) Write(f func(fd uintptr) bool) error {
	return c.RawConn.Write(func(fd uintptr) bool {
		c.calls.Add(1)
		return f(fd)
	})
}

// TestStalledReaderParksInPoller: while the reader is stalled the writer
// waits in the runtime poller, not in a loop of write attempts (docs/architecture.md,
// The pipeline: no busy polling while stalled). Over a whole stall until
// the output deadline, the write callback runs once per wake-up: a handful
// of times, whatever the machine's speed.
func TestStalledReaderParksInPoller(t *testing.T) {
	_, f := newPipe(t)
	out := &countingOutput{File: f}
	w, err := New(out, Options{InstanceID: testInstance})
	if err != nil {
		t.Fatal(err)
	}
	w.q.limit = 300 * time.Millisecond
	fill(t, f)
	w.Respond(status("stuck"))
	if err := recv(t, startRun(t, w, make(chan wire.Event)), "Run returning"); !errors.Is(err, ErrOutputDeadline) {
		t.Fatalf("Run = %v; want ErrOutputDeadline", err)
	}
	if n := out.calls.Load(); n == 0 || n > 20 {
		t.Fatalf("the write callback ran %d times during one stall; want a few (one per wake-up)", n)
	}
}

// TestRespondWakesIdleRun: a response that Respond could not write inline
// (the reader is behind) is left to Run, which Respond wakes from its idle
// wait: once the reader drains the pipe, the response arrives although no
// event ever comes.
func TestRespondWakesIdleRun(t *testing.T) {
	r, out := newPipe(t)
	w := newWriter(t, out, Options{})
	result := startRun(t, w, make(chan wire.Event))
	yieldUntil(t, "Run idle in its select", func() bool { return inState("writer.(*Writer).Run", "select") })
	fill(t, out)
	if err := w.Respond(status("late")); err != nil {
		t.Fatal(err)
	}
	// A hang guard only: the frame is due as soon as the pipe is read.
	r.SetReadDeadline(time.Now().Add(10 * time.Second))
	if f := newReader(t, r).next(); f.ID == nil || *f.ID != "late" {
		t.Fatalf("got %+v; want the response late", f)
	}
	select {
	case err := <-result:
		t.Fatalf("Run returned %v", err)
	default:
	}
}

// TestContextEndsRunParkedPastDeadline: when ctx ends while Run waits for
// a stalled reader, Run returns ctx's cause, even if by then the writer's
// clock has also passed the oldest frame's deadline: the owner's reason to
// stop (a closing drain's own bound, a shutdown) is what it gets back.
func TestContextEndsRunParkedPastDeadline(t *testing.T) {
	var shift atomic.Int64
	_, out := newPipe(t)
	w := newWriter(t, out, Options{Now: func() time.Time { return time.Now().Add(time.Duration(shift.Load())) }})
	fill(t, out)
	w.Respond(status("stuck"))
	cause := errors.New("test: closing")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, make(chan wire.Event), nil) }()
	yieldUntil(t, "Run parked in the poller", func() bool { return inState("writer.(*Writer).flush", "IO wait") })
	shift.Store(int64(10 * time.Second))
	cancel(cause)
	if err := recv(t, done, "Run returning"); !errors.Is(err, cause) {
		t.Fatalf("Run = %v; want ctx's cause", err)
	}
}

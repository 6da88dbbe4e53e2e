//go:build unix

package writer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

const testInstance = "5f2b1c8e-6d7a-4b0e-9c3d-2a1f0e9d8c7b"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		takeStdioHelper()
		return
	}
	// As serve does first thing: a write to a closed pipe must be EPIPE.
	signal.Ignore(syscall.SIGPIPE)
	goleak.VerifyTestMain(m)
}

// newPipe returns both ends of a pipe; os.Pipe already makes them
// nonblocking and registered with the poller.
func newPipe(t testing.TB) (r, w *os.File) {
	t.Helper()
	bounded(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Close waits for a write in progress on the pipe: a writer stuck
		// in one would hang the test here.
		closed := make(chan struct{})
		go func() { r.Close(); w.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(waitBound):
			stuck.Store(true)
			t.Errorf("closing the pipe did not return within %v: a writer is stuck in a write on it", waitBound)
		}
	})
	return r, w
}

func newWriter(t testing.TB, out *os.File, opts Options) *Writer {
	t.Helper()
	if opts.InstanceID == "" {
		opts.InstanceID = testInstance
	}
	w, err := New(out, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// startRun runs w.Run until the test ends; the returned channel yields its
// result. The cleanup cancels and waits, so no goroutine outlives a test.
// pendingFrames reads the frames not yet fully written.
func pendingFrames(w *Writer) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.q.count
}

func startRun(t testing.TB, w *Writer, events <-chan wire.Event) <-chan error {
	return startRunQueued(t, w, events, nil)
}

// startRunQueued is startRun with Run's queued callback.
func startRunQueued(t testing.TB, w *Writer, events <-chan wire.Event, queued func(*wire.Event)) <-chan error {
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	result := make(chan error, 1)
	go func() {
		err := w.Run(ctx, events, queued)
		done <- err
		result <- err
	}()
	t.Cleanup(func() {
		cancel(errors.New("test over"))
		select {
		case <-done:
		case <-time.After(waitBound):
			stuck.Store(true)
			t.Errorf("Run did not return within %v of its context's end", waitBound)
		}
	})
	return result
}

// fill writes newlines into the pipe until it is full, so that the next
// write(2) gets EAGAIN. Readers skip empty lines.
func fill(t testing.TB, w *os.File) {
	t.Helper()
	raw, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	junk := []byte(strings.Repeat("\n", 4096))
	raw.Control(func(fd uintptr) {
		for {
			_, err := unix.Write(int(fd), junk)
			if errors.Is(err, unix.EAGAIN) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}

type frame struct {
	Protocol   string          `json:"protocol"`
	Version    int             `json:"version"`
	Type       string          `json:"type"`
	InstanceID string          `json:"instance_id"`
	Seq        uint64          `json:"seq"`
	ID         *string         `json:"id"`
	Result     json.RawMessage `json:"result"`
	Error      *struct {
		Code string `json:"code"`
	} `json:"error"`
	Event string `json:"event"`
	Data  struct {
		Text string `json:"text"`
		Part int    `json:"part"`
		Code string `json:"code"`
	} `json:"data"`
}

// waitBound bounds every wait of these tests (for Run to return, a frame
// to arrive, a callback to run), well under the package timeout: a writer
// that loses count of its pending frames fails the test with what did not
// happen instead of hanging it.
const waitBound = 30 * time.Second

// stuck is set once a bounded wait expired: a writer goroutine may still
// spin or sit in a write, and later tests would only wait for it in turn;
// newPipe fails them at once.
var stuck atomic.Bool

// bounded fails t at once when an earlier test left a writer stuck, and
// ends the test binary, naming t, when t is still running after
// 4*waitBound: a call into the writer that never returns (Respond waiting
// for room that never comes) cannot be bounded from the test's goroutine.
// The bounded waits of recv, next and the clean-ups end first and say
// what did not happen.
func bounded(t testing.TB) {
	t.Helper()
	if stuck.Load() {
		t.Fatal("not run: an earlier test left a writer stuck (see its failure)")
	}
	name := t.Name()
	watchdog := time.AfterFunc(4*waitBound, func() {
		panic(name + " still running after " + (4 * waitBound).String() + ": a call into the writer never returned")
	})
	t.Cleanup(func() { watchdog.Stop() })
}

// recv returns the next value of ch, or fails t saying what did not happen
// within waitBound.
func recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitBound):
		stuck.Store(true)
		t.Fatalf("%s did not happen within %v", what, waitBound)
		panic("unreachable")
	}
}

// reader reads protocol frames, skipping fill's empty lines.
type reader struct {
	t   testing.TB
	src io.Reader
	br  *bufio.Reader
}

func newReader(t testing.TB, r io.Reader) *reader {
	return &reader{t: t, src: r, br: bufio.NewReaderSize(r, 128<<10)}
}

func (r *reader) next() frame {
	r.t.Helper()
	if d, ok := r.src.(interface{ SetReadDeadline(time.Time) error }); ok {
		_ = d.SetReadDeadline(time.Now().Add(waitBound))
	}
	for {
		line, err := r.br.ReadBytes('\n')
		if errors.Is(err, os.ErrDeadlineExceeded) {
			stuck.Store(true)
			r.t.Fatalf("no complete frame came out within %v (%d bytes of a partial line)", waitBound, len(line))
		}
		if err != nil {
			r.t.Fatalf("reading frame: %v", err)
		}
		if len(line) == 1 {
			continue
		}
		if len(line) > protocol.MaxOutputFrameBytes {
			r.t.Fatalf("frame of %d bytes > %d", len(line), protocol.MaxOutputFrameBytes)
		}
		var f frame
		if err := json.Unmarshal(line, &f); err != nil {
			r.t.Fatalf("frame is not JSON: %v: %.200s", err, line)
		}
		if f.Protocol != protocol.ProtocolName || f.Version != 1 || f.InstanceID != testInstance {
			r.t.Fatalf("bad envelope: %.200s", line)
		}
		return f
	}
}

func status(id string) *wire.Response {
	return &wire.Response{ID: id, Result: []byte(`{"state":"idle"}`)}
}

func delta(part int, text string) wire.Event {
	return wire.Event{Name: protocol.EventMessageDelta, SessionID: "s1", RunID: "run1", MessageID: "m1", Part: part, Text: text}
}

func TestOrderAndSeqAcrossResponsesAndEvents(t *testing.T) {
	r, out := newPipe(t)
	var taken []int
	w := newWriter(t, out, Options{})
	events := make(chan wire.Event, 8)
	// A response before Run starts is written inline.
	if err := w.Respond(status("r0")); err != nil {
		t.Fatal(err)
	}
	result := startRunQueued(t, w, events, func(e *wire.Event) { taken = append(taken, e.Part) })
	rd := newReader(t, r)
	var wantSeq uint64 = 1
	expect := func(typ, name string) frame {
		t.Helper()
		f := rd.next()
		if f.Seq != wantSeq || f.Type != typ {
			t.Fatalf("frame seq=%d type=%s; want seq=%d type=%s", f.Seq, f.Type, wantSeq, typ)
		}
		if typ == "response" && (f.ID == nil || *f.ID != name) {
			t.Fatalf("response id %v; want %s", f.ID, name)
		}
		if typ == "event" && f.Event != name {
			t.Fatalf("event %s; want %s", f.Event, name)
		}
		wantSeq++
		return f
	}
	expect("response", "r0")
	for i := range 5 {
		events <- delta(i, fmt.Sprintf("part %d", i))
		f := expect("event", protocol.EventMessageDelta)
		if f.Data.Part != i {
			t.Fatalf("delta part %d; want %d", f.Data.Part, i)
		}
		if err := w.Respond(status(fmt.Sprintf("r%d", i+1))); err != nil {
			t.Fatal(err)
		}
		expect("response", fmt.Sprintf("r%d", i+1))
	}
	events <- wire.Event{Name: protocol.EventRunFinished, SessionID: "s1", RunID: "run1", Outcome: "completed", Persistence: "durable"}
	close(events)
	expect("event", protocol.EventRunFinished)
	if err := recv(t, result, "Run returning"); err != nil {
		t.Fatalf("Run = %v; want nil after events closed and drained", err)
	}
	if len(taken) != 6 {
		t.Fatalf("queued saw %d events; want 6", len(taken))
	}
	if err := w.Respond(status("late")); !errors.Is(err, ErrStopped) {
		t.Fatalf("Respond after drain = %v; want ErrStopped", err)
	}
}

func TestEventFloodKeepsOrder(t *testing.T) {
	r, out := newPipe(t)
	w := newWriter(t, out, Options{})
	events := make(chan wire.Event, 32)
	result := startRun(t, w, events)
	const n = 5000
	go func() {
		for i := range n {
			events <- delta(i, strings.Repeat("y", 100))
		}
		close(events)
	}()
	rd := newReader(t, r)
	for i := range n {
		f := rd.next()
		if f.Seq != uint64(i+1) || f.Data.Part != i {
			t.Fatalf("frame %d: seq=%d part=%d", i, f.Seq, f.Data.Part)
		}
	}
	if err := recv(t, result, "Run returning"); err != nil {
		t.Fatalf("Run = %v; want nil", err)
	}
	if s := w.Stats(); s.Writes >= n {
		t.Logf("no batching happened in a flood: %d writes for %d frames", s.Writes, n)
	}
}

func TestBatchingPendingFramesGoOutInOneWrite(t *testing.T) {
	r, out := newPipe(t)
	w := newWriter(t, out, Options{})
	fill(t, out)
	// Nothing can be written: every frame stays pending.
	for i := range 5 {
		if err := w.Respond(status(fmt.Sprintf("b%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := pendingFrames(w); got != 5 {
		t.Fatalf("Pending = %d; want 5", got)
	}
	if s := w.Stats(); s.Writes != 0 {
		t.Fatalf("Writes = %d before the reader drains; want 0", s.Writes)
	}
	events := make(chan wire.Event)
	result := startRun(t, w, events)
	rd := newReader(t, r)
	for i := range 5 {
		if f := rd.next(); *f.ID != fmt.Sprintf("b%d", i) || f.Seq != uint64(i+1) {
			t.Fatalf("frame %d: id=%s seq=%d", i, *f.ID, f.Seq)
		}
	}
	close(events)
	if err := recv(t, result, "Run returning"); err != nil {
		t.Fatalf("Run = %v", err)
	}
	// 5 small frames (< PIPE_BUF) are written atomically by one write(2).
	if s := w.Stats(); s.Writes != 1 || s.Frames != 5 {
		t.Fatalf("Stats = %+v; want 5 frames in 1 write", s)
	}
}

func TestPendingLimit(t *testing.T) {
	cases := []struct {
		name    string
		frames  int
		wantErr error
	}{
		{"32 pending allowed", 32, nil},
		{"33rd overflows", 33, ErrOverflow},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, out := newPipe(t)
			w := newWriter(t, out, Options{})
			fill(t, out)
			var err error
			for i := range c.frames {
				if err = w.Respond(status(fmt.Sprintf("p%d", i))); err != nil {
					if i != c.frames-1 {
						t.Fatalf("Respond #%d = %v", i+1, err)
					}
				}
			}
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("Respond #%d = %v; want %v", c.frames, err, c.wantErr)
			}
			if got := pendingFrames(w); got != 32 {
				t.Fatalf("Pending = %d; want 32", got)
			}
			if c.wantErr == nil {
				return
			}
			// Run parked on the stalled pipe must notice at once, not at
			// the output deadline.
			result := startRun(t, w, make(chan wire.Event))
			if err := recv(t, result, "Run returning"); !errors.Is(err, ErrOverflow) {
				t.Fatalf("Run = %v; want ErrOverflow", err)
			}
			if err := w.Respond(status("after")); !errors.Is(err, ErrOverflow) {
				t.Fatalf("Respond after overflow = %v; want the sticky ErrOverflow", err)
			}
		})
	}
}

func TestOverflowWakesRunParkedInPoller(t *testing.T) {
	_, out := newPipe(t)
	w := newWriter(t, out, Options{})
	fill(t, out)
	w.Respond(status("first"))
	result := startRun(t, w, make(chan wire.Event))
	for i := range 31 {
		if err := w.Respond(status(fmt.Sprintf("p%d", i))); err != nil {
			t.Fatalf("Respond = %v", err)
		}
	}
	if err := w.Respond(status("boom")); !errors.Is(err, ErrOverflow) {
		t.Fatalf("33rd Respond = %v; want ErrOverflow", err)
	}
	if err := recv(t, result, "Run returning"); !errors.Is(err, ErrOverflow) {
		t.Fatalf("Run = %v; want ErrOverflow (not the later output deadline)", err)
	}
}

func TestEventsLeaveHeadroomForResponses(t *testing.T) {
	_, out := newPipe(t)
	taken := make(chan struct{}, 64)
	w := newWriter(t, out, Options{})
	fill(t, out)
	events := make(chan wire.Event, 40)
	for i := range 40 {
		events <- delta(i, "flood")
	}
	result := startRunQueued(t, w, events, func(*wire.Event) { taken <- struct{}{} })
	for range EventWatermark {
		recv(t, taken, "the queued callback")
	}
	// Run checks the watermark in the same critical section that takes
	// an event, so it can take no more now.
	if p, l := pendingFrames(w), len(events); p != EventWatermark || l != 40-EventWatermark {
		t.Fatalf("Pending=%d queued=%d; want %d, %d", p, l, EventWatermark, 40-EventWatermark)
	}
	for i := range protocol.PendingOutputFrames - EventWatermark {
		if err := w.Respond(status(fmt.Sprintf("cancel%d", i))); err != nil {
			t.Fatalf("Respond #%d during a flood to a stalled reader = %v", i+1, err)
		}
	}
	select {
	case err := <-result:
		t.Fatalf("Run returned early: %v", err)
	default:
	}
}

func TestStalledReaderHitsOutputDeadline(t *testing.T) {
	_, out := newPipe(t)
	w := newWriter(t, out, Options{})
	fill(t, out)
	// The real 2000 ms rule, end to end through the poller: assert the
	// error, not the elapsed time.
	w.Respond(status("stuck"))
	var before, after unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &before)
	result := startRun(t, w, make(chan wire.Event))
	if err := recv(t, result, "Run returning"); !errors.Is(err, ErrOutputDeadline) {
		t.Fatalf("Run = %v; want ErrOutputDeadline", err)
	}
	unix.Getrusage(unix.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	t.Logf("process CPU while stalled for the deadline: %v (no busy polling)", cpu)
	if err := w.Respond(status("after")); !errors.Is(err, ErrOutputDeadline) {
		t.Fatalf("Respond after the deadline = %v; want the sticky ErrOutputDeadline", err)
	}
}

func TestSlowReaderPartialProgressDoesNotPostponeDeadline(t *testing.T) {
	r, out := newPipe(t)
	w := newWriter(t, out, Options{})
	w.q.limit = 300 * time.Millisecond
	fill(t, out)
	// One frame of ~60 KiB behind 64 KiB of junk, and a reader held at
	// 50 KB/s: the frame keeps moving (partial writes) for over 2 s before
	// it could complete. Only a deadline that progress does not postpone
	// ends Run before that.
	big := &wire.Response{ID: "big", Result: []byte(`"` + strings.Repeat("z", 60000) + `"`)}
	w.Respond(big)
	result := startRun(t, w, make(chan wire.Event))
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	buf := make([]byte, 512)
	bound := time.After(waitBound)
	for {
		select {
		case <-bound:
			t.Fatalf("Run did not end with the output deadline within %v", waitBound)
		case err := <-result:
			if !errors.Is(err, ErrOutputDeadline) {
				t.Fatalf("Run = %v; want ErrOutputDeadline", err)
			}
			if w.Stats().Bytes == 0 {
				t.Fatalf("no partial progress was made; the test proves nothing")
			}
			return
		case <-tick.C:
		}
		n, _ := r.Read(buf)
		if bytes.IndexByte(buf[:n], '}') >= 0 {
			t.Fatalf("the frame completed: partial progress postponed the deadline")
		}
	}
}

func TestClosedReaderIsBrokenOutput(t *testing.T) {
	cases := []struct {
		name string
		emit func(w *Writer, events chan<- wire.Event) error
	}{
		{"inline response", func(w *Writer, _ chan<- wire.Event) error { return w.Respond(status("x")) }},
		{"event", func(_ *Writer, events chan<- wire.Event) error { events <- delta(0, "x"); return nil }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, out := newPipe(t)
			w := newWriter(t, out, Options{})
			events := make(chan wire.Event, 1)
			result := startRun(t, w, events)
			r.Close()
			if err := c.emit(w, events); err != nil && !errors.Is(err, ErrOutputBroken) {
				t.Fatalf("emit = %v; want nil or ErrOutputBroken", err)
			}
			err := recv(t, result, "Run returning")
			if !errors.Is(err, ErrOutputBroken) || !errors.Is(err, syscall.EPIPE) {
				t.Fatalf("Run = %v; want ErrOutputBroken wrapping EPIPE", err)
			}
		})
	}
}

func TestContextEndsRunDuringStall(t *testing.T) {
	_, out := newPipe(t)
	w := newWriter(t, out, Options{})
	fill(t, out)
	w.Respond(status("stuck"))
	cause := errors.New("closing deadline")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, make(chan wire.Event), nil) }()
	cancel(cause)
	if err := recv(t, done, "Run returning"); !errors.Is(err, cause) {
		t.Fatalf("Run = %v; want ctx's cause", err)
	}
}

// TestThirtyTwoInFlightNeverOverflows plays a client that keeps exactly 32
// requests in flight and sends the next one the moment it has read a
// response, possibly before the child's write(2) has returned. Frames are
// large, so the pipe holds far fewer than 32 and writes are partial.
func TestThirtyTwoInFlightNeverOverflows(t *testing.T) {
	r, out := newPipe(t)
	w := newWriter(t, out, Options{})
	events := make(chan wire.Event)
	result := startRun(t, w, events)
	body := []byte(`"` + strings.Repeat("q", 6000) + `"`)
	respond := func(i int) {
		if err := w.Respond(&wire.Response{ID: fmt.Sprintf("i%d", i), Result: body}); err != nil {
			t.Fatalf("Respond #%d = %v: a client with 32 in flight caused an overflow", i, err)
		}
	}
	for i := range 32 {
		respond(i)
	}
	rd := newReader(t, r)
	const total = 3000
	for i := range total {
		f := rd.next()
		if *f.ID != fmt.Sprintf("i%d", i) {
			t.Fatalf("frame %d has id %s", i, *f.ID)
		}
		if next := i + 32; next < total {
			respond(next)
		}
	}
	close(events)
	if err := recv(t, result, "Run returning"); err != nil {
		t.Fatalf("Run = %v", err)
	}
}

func TestNewRefusesUnpollableOutput(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := New(f, Options{}); err == nil {
		t.Fatalf("New(regular file) = nil error; want a refusal")
	}
}

func TestOversizeFramesAreReplaced(t *testing.T) {
	r, out := newPipe(t)
	var logged []string
	w := newWriter(t, out, Options{Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
	events := make(chan wire.Event, 1)
	result := startRun(t, w, events)
	rd := newReader(t, r)

	cases := []struct {
		name string
		size int
	}{
		{"fits exactly", 0},
		{"one byte over", 1},
		{"far over", 1 << 20},
	}
	// Size the result so that the whole frame is 65,536 bytes + over.
	overhead := len(wire.AppendResponse(nil, testInstance, 1, &wire.Response{ID: "o", Result: []byte(`""`)}))
	for i, c := range cases {
		res := []byte(`"` + strings.Repeat("o", protocol.MaxOutputFrameBytes-overhead+c.size) + `"`)
		w.Respond(&wire.Response{ID: "o", Result: res})
		f := rd.next()
		if c.size == 0 && (f.Error != nil || len(f.Result) == 0) {
			t.Fatalf("%s: a frame of exactly 65,536 bytes was not sent as is", c.name)
		}
		if c.size > 0 && (f.Error == nil || f.Error.Code != string(protocol.CodeContentLimit) || *f.ID != "o") {
			t.Fatalf("%s: got %+v; want error content_limit for id o", c.name, f)
		}
		if f.Seq != uint64(i+1) {
			t.Fatalf("%s: seq %d; want %d", c.name, f.Seq, i+1)
		}
	}
	events <- delta(0, strings.Repeat("e", 70000))
	if f := rd.next(); f.Event != protocol.EventDiagnostic || f.Data.Code != string(protocol.CodeContentLimit) {
		t.Fatalf("oversize event became %+v; want a content_limit diagnostic", f)
	}
	close(events)
	if err := recv(t, result, "Run returning"); err != nil {
		t.Fatal(err)
	}
	if s := w.Stats(); s.Oversize != 3 || len(logged) != 3 {
		t.Fatalf("Oversize=%d logged=%d; want 3, 3", s.Oversize, len(logged))
	}
}

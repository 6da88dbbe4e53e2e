//go:build unix

package writer

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/stages/wire"
)

// The writer over a Pipe (the in-process terminal session) must keep the
// rules it keeps over a real pipe: order and seq, the absolute output
// deadline for a stalled reader, broken output when the reader goes away,
// and ctx ending a stall.

func newMemWriter(t *testing.T) (*Pipe, *Writer) {
	t.Helper()
	bounded(t)
	p := NewPipe()
	t.Cleanup(func() { p.Close() })
	w, err := New(p, Options{InstanceID: testInstance})
	if err != nil {
		t.Fatal(err)
	}
	return p, w
}

func TestPipeKeepsOrderAndSeq(t *testing.T) {
	p, w := newMemWriter(t)
	events := make(chan wire.Event, 4)
	startRun(t, w, events)
	if err := w.Respond(status("a")); err != nil {
		t.Fatal(err)
	}
	events <- delta(0, "one")
	events <- delta(1, "two")
	rd := newReader(t, p)
	for i, want := range []string{"a", "one", "two"} {
		f := rd.next()
		if f.Seq != uint64(i+1) {
			t.Fatalf("frame %d has seq %d", i, f.Seq)
		}
		got := f.Data.Text
		if f.ID != nil {
			got = *f.ID
		}
		if got != want {
			t.Fatalf("frame %d = %q; want %q", i, got, want)
		}
	}
	if s := w.Stats(); s.Inline != 1 {
		t.Fatalf("Inline = %d; want the response written inline", s.Inline)
	}
}

func TestPipeStalledReaderHitsOutputDeadline(t *testing.T) {
	_, w := newMemWriter(t)
	w.q.limit = 100 * time.Millisecond
	// 70 KiB cannot fit the 64 KiB pipe: the rest waits for a reader that
	// never comes.
	w.Respond(&wire.Response{ID: "big", Result: []byte(`"` + strings.Repeat("z", 60000) + `"`)})
	w.Respond(&wire.Response{ID: "big2", Result: []byte(`"` + strings.Repeat("z", 10000) + `"`)})
	result := startRun(t, w, make(chan wire.Event))
	if err := recv(t, result, "Run returning"); !errors.Is(err, ErrOutputDeadline) {
		t.Fatalf("Run = %v; want ErrOutputDeadline", err)
	}
	if got := w.Stats().Bytes; got != PipeCapacity {
		t.Fatalf("wrote %d bytes; want exactly the pipe's %d", got, PipeCapacity)
	}
}

func TestPipeSlowReaderPartialProgressDoesNotPostponeDeadline(t *testing.T) {
	p, w := newMemWriter(t)
	w.q.limit = 300 * time.Millisecond
	w.Respond(&wire.Response{ID: "fill", Result: []byte(`"` + strings.Repeat("f", 65000) + `"`)})
	w.Respond(&wire.Response{ID: "big", Result: []byte(`"` + strings.Repeat("z", 60000) + `"`)})
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
			if w.Stats().Bytes <= PipeCapacity {
				t.Fatalf("no partial progress was made; the test proves nothing")
			}
			return
		case <-tick.C:
		}
		n, _ := p.Read(buf)
		if bytes.Contains(buf[:n], []byte(`"big"`)) {
			t.Fatalf("the second frame completed: partial progress postponed the deadline")
		}
	}
}

func TestPipeClosedReaderIsBrokenOutput(t *testing.T) {
	p, w := newMemWriter(t)
	result := startRun(t, w, make(chan wire.Event))
	p.CloseRead()
	if err := w.Respond(status("x")); !errors.Is(err, ErrOutputBroken) {
		t.Fatalf("Respond = %v; want ErrOutputBroken", err)
	}
	if err := recv(t, result, "Run returning"); !errors.Is(err, ErrOutputBroken) {
		t.Fatalf("Run = %v; want ErrOutputBroken", err)
	}
}

func TestPipeContextEndsRunDuringStall(t *testing.T) {
	_, w := newMemWriter(t)
	w.Respond(&wire.Response{ID: "big", Result: []byte(`"` + strings.Repeat("z", 60000) + `"`)})
	w.Respond(&wire.Response{ID: "big2", Result: []byte(`"` + strings.Repeat("z", 10000) + `"`)})
	cause := errors.New("closing deadline")
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, make(chan wire.Event), nil) }()
	cancel(cause)
	if err := recv(t, done, "Run returning"); !errors.Is(err, cause) {
		t.Fatalf("Run = %v; want ctx's cause", err)
	}
}

func TestPipeReadAndClose(t *testing.T) {
	p := NewPipe()
	if n, err := p.writeNonblock(0, []byte("hello\n")); n != 6 || err != nil {
		t.Fatalf("write = %d, %v", n, err)
	}
	p.Close()
	got, err := io.ReadAll(p)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("ReadAll = %q, %v; want the bytes then EOF", got, err)
	}
	if _, err := p.writeNonblock(0, []byte("x")); err == nil {
		t.Fatal("write after Close succeeded")
	}
	if err := p.SetWriteDeadline(time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	raw, _ := p.SyscallConn()
	if err := raw.Write(func(uintptr) bool { return false }); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Write past the deadline = %v; want os.ErrDeadlineExceeded", err)
	}
}

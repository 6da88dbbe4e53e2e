package mission

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
)

// hangGuard only turns a Run that never returns into a failure; nothing
// here asserts how fast anything happens.
const hangGuard = 2 * time.Minute

// runApp runs the app on in and out with SIGHUP delivered on hup and
// returns its exit code, failing t if it never returns.
func runApp(t *testing.T, in io.Reader, out io.Writer, hup <-chan os.Signal) int {
	t.Helper()
	fb := &fakeBackend{events: make(chan client.Event)}
	done := make(chan int, 1)
	go func() { done <- runWith(Options{Backend: fb, Notify: func(string) string { return "" }}, in, out, hup) }()
	select {
	case code := <-done:
		return code
	case <-time.After(hangGuard):
		t.Fatal("the app did not end")
		return -1
	}
}

// script is a terminal's input: its chunks, then err for ever. It counts
// the reads that got err: a reader that read on after the terminal went
// away would spin.
type script struct {
	mu     sync.Mutex
	chunks []string
	err    error
	failed int
}

func (s *script) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.chunks) > 0 {
		n := copy(p, s.chunks[0])
		s.chunks[0] = s.chunks[0][n:]
		if s.chunks[0] == "" {
			s.chunks = s.chunks[1:]
		}
		return n, nil
	}
	s.failed++
	return 0, s.err
}

func (s *script) reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// A terminal that went away reads as the end of input or fails with EIO or
// ENXIO (os.File wraps them in a *PathError): the app ends with
// ExitHangup, whether or not keys came first, and reads it only once.
func TestTerminalGoneOnInputEndsTheApp(t *testing.T) {
	pathErr := func(errno syscall.Errno) error { return &os.PathError{Op: "read", Path: "/dev/tty", Err: errno} }
	for _, c := range []struct {
		name   string
		chunks []string
		err    error
	}{
		{"end of input", nil, io.EOF},
		{"end of input after keys", []string{"hel", "lo"}, io.EOF},
		{"EIO", nil, pathErr(syscall.EIO)},
		{"EIO after keys", []string{"draft"}, pathErr(syscall.EIO)},
		{"ENXIO", nil, pathErr(syscall.ENXIO)},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := &script{chunks: c.chunks, err: c.err}
			if code := runApp(t, in, io.Discard, nil); code != ExitHangup {
				t.Fatalf("exit %d; want %d", code, ExitHangup)
			}
			if n := in.reads(); n != 1 {
				t.Fatalf("the gone terminal was read %d times; want once", n)
			}
		})
	}
}

// Another read error is not a hangup: the app ends with 1, as it did
// before.
func TestOtherInputErrorIsNotAHangup(t *testing.T) {
	in := &script{err: errors.New("something else")}
	if code := runApp(t, in, io.Discard, nil); code != 1 {
		t.Fatalf("exit %d; want 1", code)
	}
}

// failingWriter fails every write with err once it is set.
type failingWriter struct {
	mu  sync.Mutex
	err error
}

func (w *failingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// A write that fails with EIO says the terminal went away too, while its
// input says nothing (the input is another terminal, or the read blocks):
// the app ends with ExitHangup.
func TestTerminalGoneOnOutputEndsTheApp(t *testing.T) {
	in, typing := io.Pipe()
	defer typing.Close()
	out := &failingWriter{err: &os.PathError{Op: "write", Path: "/dev/tty", Err: syscall.EIO}}
	if code := runApp(t, in, out, nil); code != ExitHangup {
		t.Fatalf("exit %d; want %d", code, ExitHangup)
	}
}

// SIGHUP ends the app as its terminal's end does.
func TestSIGHUPEndsTheApp(t *testing.T) {
	in, typing := io.Pipe()
	defer typing.Close()
	hup := make(chan os.Signal, 1)
	hup <- syscall.SIGHUP
	if code := runApp(t, in, io.Discard, hup); code != ExitHangup {
		t.Fatalf("exit %d; want %d", code, ExitHangup)
	}
}

// /quit on a live terminal leaves with 0: neither the input kept open nor
// the writes are taken for a hangup.
func TestQuitIsNotAHangup(t *testing.T) {
	in, typing := io.Pipe()
	defer typing.Close()
	go func() { _, _ = io.WriteString(typing, "/quit\r") }()
	if code := runApp(t, in, io.Discard, make(chan os.Signal)); code != 0 {
		t.Fatalf("exit %d after /quit; want 0", code)
	}
}

func TestTerminalGone(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{io.EOF, true},
		{syscall.EIO, true},
		{&os.PathError{Op: "write", Path: "/dev/tty", Err: syscall.EIO}, true},
		{syscall.ENXIO, true},
		{io.ErrUnexpectedEOF, false},
		{syscall.EAGAIN, false}, // a terminal someone made non-blocking: alive
		{syscall.EINTR, false},
		{errors.New("other"), false},
	} {
		if got := terminalGone(c.err); got != c.want {
			t.Errorf("terminalGone(%v) = %t; want %t", c.err, got, c.want)
		}
	}
}

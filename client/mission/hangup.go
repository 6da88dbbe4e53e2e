package mission

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// The app ends when its terminal goes away (the window closed, the ssh
// connection dropped, the pseudo-terminal's master closed), whatever
// SIGHUP's disposition: a terminal hung up reads as the end of input (a
// terminal in raw mode never reads 0 bytes while it lives) or fails with
// EIO, and its writes fail with EIO. A program started with SIGHUP ignored
// (under nohup, or by a parent that ignored it: the disposition is
// inherited) is never told by the signal, so the terminal itself is
// watched. It then leaves as it does on /quit, except that nothing more is
// drawn: Run returns, and the caller ends the backend and its commands.

// ExitHangup is the exit code when the terminal went away or SIGHUP came:
// 128 + SIGHUP's number, what a shell reports for a program SIGHUP ended.
const ExitHangup = 129

// errTerminalGone is the cause of the end when the terminal went away.
var errTerminalGone = errors.New("the terminal is gone")

// hangup ends the program (its context, given to Bubble Tea) when the
// terminal goes away.
type hangup struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

func newHangup() hangup {
	ctx, cancel := context.WithCancelCause(context.Background())
	return hangup{ctx: ctx, cancel: cancel}
}

// gone ends the program: the terminal went away.
func (h hangup) gone() { h.cancel(errTerminalGone) }

// happened reports whether the terminal went away.
func (h hangup) happened() bool { return errors.Is(context.Cause(h.ctx), errTerminalGone) }

// check ends the program when err, from a read or a write of the
// terminal, says that it went away, and returns err. (Bubble Tea's input
// reader takes the end of input for a normal end: it stops reading and
// leaves the program running with no input.)
func (h hangup) check(err error) error {
	if err != nil && terminalGone(err) {
		h.gone()
	}
	return err
}

// terminalGone reports whether err, from a read or a write of the
// terminal, says that it went away: the end of input, EIO (hung up, or
// this process's group orphaned from it) or ENXIO (no device any more).
func terminalGone(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.EIO) || errors.Is(err, syscall.ENXIO)
}

// watchSignal ends the program when hup delivers (SIGHUP) until stop is
// closed.
func (h hangup) watchSignal(hup <-chan os.Signal, stop <-chan struct{}) {
	select {
	case <-hup:
		h.gone()
	case <-stop:
	}
}

// hangupSignal returns the channel SIGHUP is delivered on and the function
// that stops the delivery. A SIGHUP the process ignores stays ignored (no
// channel: nil): nohup asked for the program to outlive the signal, not
// its terminal.
func hangupSignal() (<-chan os.Signal, func()) {
	if signal.Ignored(syscall.SIGHUP) {
		return nil, func() {}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	return ch, func() { signal.Stop(ch) }
}

// ttyFile is what Bubble Tea and its input reader take for a terminal: a
// file with a descriptor (its size, raw mode, a read that can be
// cancelled).
type ttyFile interface {
	io.ReadWriteCloser
	Fd() uintptr
	Name() string
}

// input returns in, whose reads end the program when the terminal went
// away; a terminal file stays one.
func (h hangup) input(in io.Reader) io.Reader {
	if f, ok := in.(ttyFile); ok {
		return watchedFile{ttyFile: f, h: h}
	}
	return watchedReader{r: in, h: h}
}

// output returns out, whose writes end the program when the terminal went
// away; a terminal file stays one.
func (h hangup) output(out io.Writer) io.Writer {
	if f, ok := out.(ttyFile); ok {
		return watchedFile{ttyFile: f, h: h}
	}
	return watchedWriter{w: out, h: h}
}

// watchedFile is a terminal file whose reads and writes are checked.
type watchedFile struct {
	ttyFile
	h hangup
}

func (f watchedFile) Read(p []byte) (int, error) {
	n, err := f.ttyFile.Read(p)
	return n, f.h.check(err)
}

func (f watchedFile) Write(p []byte) (int, error) {
	n, err := f.ttyFile.Write(p)
	return n, f.h.check(err)
}

func (f watchedFile) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

// watchedReader and watchedWriter are a reader and a writer that are not
// files, checked the same way.
type watchedReader struct {
	r io.Reader
	h hangup
}

func (w watchedReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	return n, w.h.check(err)
}

type watchedWriter struct {
	w io.Writer
	h hangup
}

func (w watchedWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	return n, w.h.check(err)
}

package writer

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// PipeCapacity is what a Pipe holds before writes would block: the size of
// a Linux pipe buffer, so that a stalled in-process reader behaves like a
// stalled reader on a real pipe.
const PipeCapacity = 64 << 10

// errPipeNoRead: a Pipe's RawConn cannot read (the writer never reads).
var errPipeNoRead = errors.New("writer: a Pipe is write-only")

// Pipe is an in-memory protocol output for an in-process client (the
// terminal session runs the pipeline in the same process, which works where
// the stdio transport does not, Windows included). It behaves like the
// nonblocking pipe TakeStdio hands the writer: a write takes what fits in
// PipeCapacity bytes and never blocks, the writer waits for room until its
// write deadline, and a closed read side is broken output. The reader gets
// bytes in order through Read.
//
// The Writer writes it; the owner of the pipeline calls Close after the
// Writer's Run returned (EOF for the reader); the reader calls CloseRead
// when it stops reading. Safe for concurrent use.
type Pipe struct {
	// mu guards the fields below.
	mu       sync.Mutex
	buf      []byte // unread bytes are buf[r:]
	r        int
	closed   bool // write side closed: Read returns io.EOF once empty
	rclosed  bool // read side closed: writes fail
	deadline time.Time
	// changed is closed, and replaced, whenever data, room, closure or the
	// deadline changes: waiters snapshot it before they look.
	changed chan struct{}
}

// NewPipe returns an empty Pipe.
func NewPipe() *Pipe {
	return &Pipe{buf: make([]byte, 0, PipeCapacity), changed: make(chan struct{})}
}

// notifyLocked wakes every waiter.
func (p *Pipe) notifyLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Read reads what is buffered, blocking until there is something or the
// write side is closed (io.EOF once drained). After CloseRead it returns
// io.ErrClosedPipe.
func (p *Pipe) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		p.mu.Lock()
		switch {
		case p.rclosed:
			p.mu.Unlock()
			return 0, io.ErrClosedPipe
		case p.r < len(p.buf):
			n := copy(b, p.buf[p.r:])
			p.r += n
			if p.r == len(p.buf) {
				p.buf, p.r = p.buf[:0], 0
			}
			p.notifyLocked()
			p.mu.Unlock()
			return n, nil
		case p.closed:
			p.mu.Unlock()
			return 0, io.EOF
		}
		changed := p.changed
		p.mu.Unlock()
		<-changed
	}
}

// Close closes the write side: the reader gets io.EOF after the buffered
// bytes. Later writes fail.
func (p *Pipe) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.notifyLocked()
	return nil
}

// CloseRead closes the read side: buffered bytes are discarded and every
// later write fails, as writing to a pipe nobody reads (EPIPE).
func (p *Pipe) CloseRead() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rclosed = true
	p.buf, p.r = p.buf[:0], 0
	p.notifyLocked()
	return nil
}

// SetWriteDeadline sets when a writer waiting for room gives up with
// os.ErrDeadlineExceeded; a time in the past wakes it at once, as on a
// file in the runtime poller.
func (p *Pipe) SetWriteDeadline(t time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.deadline = t
	p.notifyLocked()
	return nil
}

// SyscallConn returns the RawConn the Writer drives, with the semantics of
// a nonblocking file's: Control runs its function at once; Write calls its
// function until it returns true, waiting for room (or the deadline)
// between calls. The descriptor passed to the functions is meaningless:
// the Writer writes a Pipe with writeNonblock, not write(2).
func (p *Pipe) SyscallConn() (syscall.RawConn, error) { return pipeConn{p}, nil }

// writeNonblock appends what fits of b without blocking, like write(2) on a
// nonblocking pipe: a short count (possibly 0, with a nil error) means the
// pipe is full.
func (p *Pipe) writeNonblock(_ uintptr, b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rclosed || p.closed {
		return 0, io.ErrClosedPipe
	}
	if p.r > 0 && len(p.buf)+len(b) > cap(p.buf) {
		n := copy(p.buf, p.buf[p.r:])
		p.buf, p.r = p.buf[:n], 0
	}
	n := min(len(b), cap(p.buf)-len(p.buf))
	if n > 0 {
		p.buf = append(p.buf, b[:n]...)
		p.notifyLocked()
	}
	return n, nil
}

// waitState reports the current deadline and the channel that closes on
// the next change.
func (p *Pipe) waitState() (deadline time.Time, changed <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.deadline, p.changed
}

type pipeConn struct{ p *Pipe }

func (c pipeConn) Control(f func(fd uintptr)) error {
	f(0)
	return nil
}

func (c pipeConn) Read(func(fd uintptr) bool) error { return errPipeNoRead }

// Write mirrors the poller's RawConn.Write: fail at once past the deadline,
// else call f until it returns true, waiting between calls for a change
// (room, closure, a new deadline) or the deadline. The wake channel is
// taken before f runs, so a change during f is never missed.
func (c pipeConn) Write(f func(fd uintptr) bool) error {
	for {
		deadline, changed := c.p.waitState()
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return os.ErrDeadlineExceeded
		}
		if f(0) {
			return nil
		}
		if deadline.IsZero() {
			<-changed
			continue
		}
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-changed:
			t.Stop()
		case <-t.C:
			return os.ErrDeadlineExceeded
		}
	}
}

package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/magi-code/magi-code/internal/jsonenc"
	"github.com/magi-code/magi-code/protocol"
)

// Defaults of Options.
const (
	DefaultEventBuffer = 4096
	DefaultStderrLimit = 64 << 10
)

// ErrClosed is returned by Call and Await when the child's output ended (or
// the client was killed) before the response arrived; when the output
// broke the protocol, the error wraps ErrProtocol instead.
var ErrClosed = errors.New("client: output closed")

// Options configure Start.
type Options struct {
	// Bin is the magi-code binary. Args default to "serve", "--stdio".
	Bin  string
	Args []string
	// Dir is the child's working directory; Env its whole environment
	// (MC_HOME, HOME, PATH...), nothing inherited when nil.
	Dir string
	Env []string
	// EventBuffer is the capacity of the Events channel (default 4096).
	// When it is full the reader blocks, and with it the reading of every
	// later frame, responses included: this models a slow reader (the child
	// sees its pipe fill), it never drops or reorders. A test that does not
	// receive events must set IgnoreEvents, or its Calls can stall.
	EventBuffer int
	// IgnoreEvents checks events and then discards them (the frame log
	// still records them).
	IgnoreEvents bool
	// RecordFrames keeps every frame in the log returned by Frames.
	RecordFrames bool
	// StderrLimit bounds the stderr kept for Wait (default 64 KiB); the
	// rest is read and counted so the child never blocks on stderr.
	StderrLimit int
	// CheckFrame, when set, is called with every output frame (LF
	// included) that passed the client's own checks, in order, on a
	// goroutine of its own so that a slow check never slows the reading of
	// the pipe (up to checkBacklog frames behind). Its first error is a
	// protocol violation reported by CheckErr, Err and Wait. Tests set it to
	// schemacheck.Validate so that every frame is held to the published
	// schema.
	CheckFrame func(frame []byte) error
}

// Error is the error object of a response.
type Error struct {
	Code string `json:"code"`
}

// Response is one response frame. ID is nil for "id":null. Exactly one of
// Result and Error is set. Raw is the whole frame, LF included.
type Response struct {
	ID     *string
	Seq    uint64
	Result json.RawMessage
	Error  *Error
	Raw    []byte
}

// Event is one run event frame. Data is the raw data object; SessionID and
// RunID are decoded from it. Raw is the whole frame, LF included.
type Event struct {
	Seq       uint64
	Name      string
	SessionID string
	RunID     string
	Data      json.RawMessage
	Raw       []byte
}

// Frame is one output frame as recorded with Options.RecordFrames.
type Frame struct {
	Seq  uint64
	Type string // "response" or "event"
	Raw  []byte
}

// Client drives one child over real pipes. Its methods are safe for
// concurrent use.
type Client struct {
	opts Options
	// optional: the optional capabilities an initialize this client sent
	// required, so their events are expected (Send sets it).
	optional atomic.Pointer[[]string]
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	stderr   *boundedBuffer

	// writeMu serialises writes to stdin.
	writeMu sync.Mutex

	// quit closes on Kill: a reader blocked on a full Events channel gives
	// up and drains the rest of the output.
	quit     chan struct{}
	quitOnce sync.Once
	// readDone closes when the reader goroutine has seen EOF (or a read
	// error) on stdout; events closes as soon as the output ends or breaks
	// the protocol (the reader then only drains stdout).
	readDone chan struct{}
	events   chan Event
	// checks carries frames to the CheckFrame goroutine (nil without
	// CheckFrame); the reader closes it when it ends. checkDone closes when
	// that goroutine has checked the last frame.
	checks    chan []byte
	checkDone chan struct{}

	// mu guards the fields below.
	mu         sync.Mutex
	nextID     uint64
	waiters    map[string][]chan *Response // by request ID, oldest first
	arrived    map[string][]*Response      // responses no one waited for yet
	nullIDs    []*Response                 // "id":null responses not yet taken
	nullWait   []chan *Response
	ended      bool  // the output ended: no more responses
	readErr    error // first protocol violation or read error; nil on clean EOF
	checkErr   error // first CheckFrame error
	frames     []Frame
	instanceID string
}

// Start spawns the child with real pipes and starts the goroutine that
// reads and checks its output. ctx bounds only the start: the child lives
// until it exits or Kill. The goroutine ends when stdout reaches EOF (a
// grandchild that inherited stdout keeps it open; Kill reaches the whole
// process group); call Wait, or Kill then Wait, to release everything.
func Start(ctx context.Context, opts Options) (*Client, error) {
	if opts.Bin == "" {
		return nil, errors.New("client: no binary")
	}
	if opts.Args == nil {
		opts.Args = []string{"serve", "--stdio"}
	}
	if opts.EventBuffer <= 0 {
		opts.EventBuffer = DefaultEventBuffer
	}
	if opts.StderrLimit <= 0 {
		opts.StderrLimit = DefaultStderrLimit
	}
	cmd := exec.Command(opts.Bin, opts.Args...)
	cmd.Dir = opts.Dir
	cmd.Env = opts.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	setProcessGroup(cmd)
	c := &Client{
		opts:     opts,
		cmd:      cmd,
		stderr:   &boundedBuffer{limit: opts.StderrLimit},
		quit:     make(chan struct{}),
		readDone: make(chan struct{}),
		events:   make(chan Event, opts.EventBuffer),
		waiters:  map[string][]chan *Response{},
		arrived:  map[string][]*Response{},
	}
	cmd.Stderr = c.stderr
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// The reader ends on EOF, which the child's exit guarantees (Kill
	// forces it); Wait waits for it before reaping.
	c.startChecks()
	go c.read(stdout)
	return c, nil
}

// Connect returns a client of a server that is not a child process, such as
// the pipeline running in this process: the client reads the server's
// output from out and writes requests to in. It starts the same checking
// reader goroutine as Start, which ends when out reaches EOF. Kill closes
// in (EOF for the server) and unblocks the reader; Wait waits for out's EOF
// and reports exit code 0 (the caller owns the server's real outcome).
// Options.Bin, Args, Dir and Env are ignored.
func Connect(out io.Reader, in io.WriteCloser, opts Options) *Client {
	if opts.EventBuffer <= 0 {
		opts.EventBuffer = DefaultEventBuffer
	}
	c := &Client{
		opts:     opts,
		stdin:    in,
		stderr:   &boundedBuffer{},
		quit:     make(chan struct{}),
		readDone: make(chan struct{}),
		events:   make(chan Event, opts.EventBuffer),
		waiters:  map[string][]chan *Response{},
		arrived:  map[string][]*Response{},
	}
	c.startChecks()
	go c.read(out) // ends on out's EOF, which the server's end guarantees
	return c
}

// read is the reader goroutine: it checks every frame, routes responses to
// their waiters and events to the Events channel, and records the first
// violation. After a violation it keeps draining stdout so the child never
// blocks on a full pipe because of the test.
func (c *Client) read(stdout io.Reader) {
	defer close(c.readDone)
	if c.checks != nil {
		defer close(c.checks)
	}
	br := bufio.NewReaderSize(stdout, protocol.MaxOutputFrameBytes+1)
	chk := checker{required: func(capability string) bool {
		caps := c.optional.Load()
		return caps != nil && slices.Contains(*caps, capability)
	}}
	end := func(err error) {
		c.fail(err)
		close(c.events)
		_, _ = io.Copy(io.Discard, br)
	}
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			end(violation("frame longer than %d bytes", protocol.MaxOutputFrameBytes))
			return
		case errors.Is(err, io.EOF) && len(line) > 0:
			// docs/protocol.md, Frames: "Partial output lines are not usable messages."
			end(violation("%d bytes without LF at EOF", len(line)))
			return
		case errors.Is(err, io.EOF):
			end(nil)
			return
		default:
			end(fmt.Errorf("client: reading stdout: %w", err))
			return
		}
		resp, ev, err := chk.frame(line)
		if err != nil {
			end(err)
			return
		}
		if c.checks != nil {
			var raw []byte
			if ev != nil {
				raw = ev.Raw
			} else {
				raw = resp.Raw
			}
			select {
			case c.checks <- raw:
			case <-c.quit:
			}
		}
		if chk.lastSeq == 1 {
			c.mu.Lock()
			c.instanceID = chk.instanceID
			c.mu.Unlock()
		}
		if c.opts.RecordFrames {
			f := Frame{Seq: chk.lastSeq, Type: "response"}
			if ev != nil {
				f.Type, f.Raw = "event", ev.Raw
			} else {
				f.Raw = resp.Raw
			}
			c.mu.Lock()
			c.frames = append(c.frames, f)
			c.mu.Unlock()
		}
		if resp != nil {
			c.deliver(resp)
			continue
		}
		if c.opts.IgnoreEvents {
			continue
		}
		select {
		case c.events <- *ev:
		case <-c.quit:
		}
	}
}

// checkBacklog is how many frames the CheckFrame goroutine may fall behind
// the reader before the reader waits for it.
const checkBacklog = 1 << 16

// startChecks starts the CheckFrame goroutine when Options.CheckFrame is
// set. It ends when the reader has closed checks and every frame is checked.
func (c *Client) startChecks() {
	c.checkDone = make(chan struct{})
	if c.opts.CheckFrame == nil {
		close(c.checkDone)
		return
	}
	c.checks = make(chan []byte, checkBacklog)
	go func() {
		defer close(c.checkDone)
		seq := 0
		for frame := range c.checks {
			seq++
			if c.CheckErr() != nil {
				continue
			}
			if err := c.opts.CheckFrame(frame); err != nil {
				c.mu.Lock()
				c.checkErr = violation("frame %d: %v: %.300q", seq, err, frame)
				c.mu.Unlock()
			}
		}
	}()
}

// CheckErr returns the first error of Options.CheckFrame so far, nil if
// none.
func (c *Client) CheckErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.checkErr
}

// fail records the end of the output: err is nil on a clean EOF. Every
// waiter is released.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ended {
		c.readErr = err
	}
	c.ended = true
	for id, ws := range c.waiters {
		for _, w := range ws {
			close(w)
		}
		delete(c.waiters, id)
	}
	for _, w := range c.nullWait {
		close(w)
	}
	c.nullWait = nil
}

func (c *Client) deliver(r *Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.ID == nil {
		if len(c.nullWait) > 0 {
			c.nullWait[0] <- r
			c.nullWait = c.nullWait[1:]
			return
		}
		c.nullIDs = append(c.nullIDs, r)
		return
	}
	id := *r.ID
	if ws := c.waiters[id]; len(ws) > 0 {
		ws[0] <- r // buffered: never blocks
		if len(ws) == 1 {
			delete(c.waiters, id)
		} else {
			c.waiters[id] = ws[1:]
		}
		return
	}
	c.arrived[id] = append(c.arrived[id], r)
}

// closedErr is the error for a waiter released without a response.
func (c *Client) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readErr != nil {
		return c.readErr
	}
	return ErrClosed
}

// Call sends a request with a fresh unique ID ("c1", "c2"...) and waits
// for the response with that ID, whatever arrives before it. It returns an
// error only when the request could not be written, ctx ended, or the
// output ended first; an error response is a *Response with Error set.
func (c *Client) Call(ctx context.Context, method string, params any) (*Response, error) {
	c.mu.Lock()
	c.nextID++
	id := "c" + strconv.FormatUint(c.nextID, 10)
	c.mu.Unlock()
	w := c.expect(id)
	if err := c.Send(id, method, params); err != nil {
		return nil, err
	}
	return c.await(ctx, w)
}

// Await waits for the next response with the given ID, one sent with Send
// (or any response that arrived with that ID, e.g. a duplicate_id answer).
func (c *Client) Await(ctx context.Context, id string) (*Response, error) {
	return c.await(ctx, c.expect(id))
}

// AwaitNull waits for the next response with "id":null.
func (c *Client) AwaitNull(ctx context.Context) (*Response, error) {
	w := make(chan *Response, 1)
	c.mu.Lock()
	switch {
	case len(c.nullIDs) > 0:
		w <- c.nullIDs[0]
		c.nullIDs = c.nullIDs[1:]
	case c.ended:
		close(w)
	default:
		c.nullWait = append(c.nullWait, w)
	}
	c.mu.Unlock()
	return c.await(ctx, w)
}

// expect registers interest in the next response with id and returns the
// channel it will arrive on (closed if the output ends first).
func (c *Client) expect(id string) chan *Response {
	w := make(chan *Response, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if rs := c.arrived[id]; len(rs) > 0 {
		w <- rs[0]
		if len(rs) == 1 {
			delete(c.arrived, id)
		} else {
			c.arrived[id] = rs[1:]
		}
		return w
	}
	if c.ended {
		close(w)
		return w
	}
	c.waiters[id] = append(c.waiters[id], w)
	return w
}

func (c *Client) await(ctx context.Context, w chan *Response) (*Response, error) {
	select {
	case r, ok := <-w:
		if !ok {
			return nil, c.closedErr()
		}
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Send writes one request frame with the given ID, method and params
// (marshalled with encoding/json; nil becomes {}). It blocks while the
// child is not reading stdin, like any pipe writer.
func (c *Client) Send(id, method string, params any) error {
	if params == nil {
		params = struct{}{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if method == "initialize" {
		var init struct {
			Caps []string `json:"required_capabilities"`
		}
		if json.Unmarshal(p, &init) == nil {
			c.optional.Store(&init.Caps)
		}
	}
	line := make([]byte, 0, 96+len(id)+len(method)+len(p))
	line = append(line, `{"protocol":"`+protocol.ProtocolName+`","version":1,"id":`...)
	line = jsonenc.AppendString(line, id)
	line = append(line, `,"method":`...)
	line = jsonenc.AppendString(line, method)
	line = append(line, `,"params":`...)
	line = append(line, p...)
	line = append(line, "}\n"...)
	return c.SendLine(line)
}

// SendLine writes b to the child's stdin as is: bad frames, partial frames,
// several frames at once.
func (c *Client) SendLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.stdin.Write(b)
	return err
}

// CloseStdin closes the child's stdin: EOF for the child.
func (c *Client) CloseStdin() error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.stdin.Close()
}

// Events returns the run events in arrival order. The channel closes when
// the output ends; Err then says whether it ended cleanly.
func (c *Client) Events() <-chan Event { return c.events }

// Err returns the first protocol violation or read error seen so far, nil
// if none (a clean EOF is not an error); then the first CheckFrame error.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.readErr != nil {
		return c.readErr
	}
	return c.checkErr
}

// Frames returns a copy of the frame log (Options.RecordFrames).
func (c *Client) Frames() []Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Frame(nil), c.frames...)
}

// Kill kills the child and its process group, and unblocks a reader
// stalled on a full Events channel. Call Wait afterwards.
func (c *Client) Kill() {
	c.quitOnce.Do(func() { close(c.quit) })
	if c.cmd == nil {
		_ = c.CloseStdin()
		return
	}
	killProcess(c.cmd)
}

// Wait waits until the child's stdout reaches EOF and the child exits,
// then returns its exit code (-1 if it died by a signal), the stderr it
// wrote (at most Options.StderrLimit bytes; see StderrBytes for the total),
// and the first protocol violation or read error, if any. A nonzero exit is
// not an error. Wait blocks while the Events channel is full and unread;
// receive the events, set IgnoreEvents, or Kill first.
func (c *Client) Wait() (exitCode int, stderr []byte, err error) {
	<-c.readDone
	<-c.checkDone
	if c.cmd == nil {
		_ = c.CloseStdin()
		return 0, nil, c.Err()
	}
	werr := c.cmd.Wait()
	var exit *exec.ExitError
	switch {
	case werr == nil:
		exitCode = 0
	case errors.As(werr, &exit):
		exitCode = exit.ExitCode()
	default:
		return -1, c.stderr.Bytes(), werr
	}
	_ = c.stdin.Close()
	return exitCode, c.stderr.Bytes(), c.Err()
}

// StderrBytes returns how many bytes the child wrote to stderr in total.
func (c *Client) StderrBytes() int64 { return c.stderr.Total() }

// InstanceID returns the child's instance_id, "" before the first frame.
func (c *Client) InstanceID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.instanceID
}

// boundedBuffer keeps the first limit bytes written and counts the rest.
type boundedBuffer struct {
	limit int
	// mu guards buf and total.
	mu    sync.Mutex
	buf   []byte
	total int64
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	if room := b.limit - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *boundedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}

func (b *boundedBuffer) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

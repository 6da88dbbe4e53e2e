package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/magi-code/magi-code/runner/subproc"
)

// MaxMessageBytes bounds one line (one JSON-RPC message) from a stdio
// server, excluding its LF. 4 MiB holds any reasonable tool result (results
// are cut far smaller before they reach the model) while keeping one
// server's read buffer bounded.
const MaxMessageBytes = 4 << 20

// Errors a server's calls return once it has failed.
var (
	// ErrMessageTooLarge: the server sent a line longer than MaxMessageBytes
	// (or an HTTP body longer than MaxHTTPBodyBytes). The server is failed.
	ErrMessageTooLarge = errors.New("mcp: server message too large")
	// ErrServerExited: the server closed its stdout or exited.
	ErrServerExited = errors.New("mcp: server exited")
	// ErrServerClosed: we shut the server down.
	ErrServerClosed = errors.New("mcp: server closed")
	// ErrServerBroken: writing to the server failed mid-message.
	ErrServerBroken = errors.New("mcp: server stream broken")
)

// minimalEnv returns the environment of a server: the inherited variables
// that are set, then the server's own entries in key order, which override
// inherited ones. Keys must be nonempty and contain no '=' or NUL.
func minimalEnv(getenv func(string) string, own map[string]string) ([]string, error) {
	merged := make(map[string]string, len(subproc.Inherited)+len(own))
	for _, k := range subproc.Inherited {
		if v := getenv(k); v != "" {
			merged[k] = v
		}
	}
	for k, v := range own {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return nil, errors.New("mcp: invalid env entry")
		}
		merged[k] = v
	}
	keys := make([]string, 0, len(merged))
	for k := range merged {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, len(keys))
	for i, k := range keys {
		env[i] = k + "=" + merged[k]
	}
	return env, nil
}

// stdioTransport is an rpcConn over a server subprocess that we
// spawned ourselves (see the package doc for why not mcp-go's Stdio).
// SendRequest and SendNotification are safe for concurrent use.
type stdioTransport struct {
	cmd    *exec.Cmd
	pid    int      // leader of the server's process group
	stdin  *os.File // our write end of the server's stdin
	stdout *os.File // our read end of the server's stdout
	stderr *os.File // our read end of the server's stderr
	tail   *tail    // last MaxStderrBytes of stderr
	maxMsg int      // line bound, MaxMessageBytes except in tests

	// exited is closed once the process has been reaped.
	exited chan struct{}
	// failed is closed, once, when the server becomes unusable; failErr says why.
	failed chan struct{}
	// drained is closed when drainStderr returns: tail is complete.
	drained chan struct{}

	// writing holds one token while a whole line is written to stdin
	// (capacity 1). A channel, not a mutex, so that a writer waiting for
	// its turn still returns when its ctx ends.
	writing chan struct{}

	// mu guards pending and failErr.
	mu      sync.Mutex
	pending map[string]chan *rpcResponse
	failErr error

	// notifyMu guards onNotify.
	notifyMu sync.RWMutex
	onNotify func(mcp.JSONRPCNotification)

	stdinOnce sync.Once
}

var _ rpcConn = (*stdioTransport)(nil)

// spawnStdio starts def's command with the minimal environment, in its own
// process group, with three pipes of ours as fds 0, 1 and 2. It starts no
// goroutine: the caller runs readLoop, drainStderr and waitLoop.
func spawnStdio(def ServerDef, maxMsg int) (*stdioTransport, error) {
	env, err := minimalEnv(os.Getenv, def.Env)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(def.Command, def.Args...)
	cmd.Env = env
	cmd.Dir = def.Cwd
	subproc.OwnGroup(cmd)

	// Our ends of os.Pipe are in the runtime poller, so Close unblocks a
	// pending Read or Write and SetWriteDeadline works. The child's ends are
	// set blocking by exec when it passes them on.
	var files [6]*os.File
	closeAll := func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}
	for i := 0; i < 6; i += 2 {
		if files[i], files[i+1], err = os.Pipe(); err != nil {
			closeAll()
			return nil, fmt.Errorf("mcp: pipe: %w", err)
		}
	}
	inR, inW, outR, outW, errR, errW := files[0], files[1], files[2], files[3], files[4], files[5]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("mcp: start server: %w", err)
	}
	// The child holds its ends now; ours must go so that EOF can arrive.
	inR.Close()
	outW.Close()
	errW.Close()
	return &stdioTransport{
		cmd:     cmd,
		pid:     cmd.Process.Pid,
		stdin:   inW,
		stdout:  outR,
		stderr:  errR,
		tail:    newTail(MaxStderrBytes),
		maxMsg:  maxMsg,
		exited:  make(chan struct{}),
		failed:  make(chan struct{}),
		drained: make(chan struct{}),
		writing: make(chan struct{}, 1),
		pending: make(map[string]chan *rpcResponse),
	}, nil
}

// fail marks the server unusable with err (the first reason wins) and wakes
// every pending request.
func (t *stdioTransport) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.failErr == nil {
		t.failErr = err
		close(t.failed)
	}
}

func (t *stdioTransport) err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failErr
}

// waitLoop reaps the process, then kills what is left of its process group
// (its children), so that they release the pipes and nothing outlives it.
func (t *stdioTransport) waitLoop() {
	_ = t.cmd.Wait()
	_ = subproc.KillGroup(t.pid)
	close(t.exited)
}

// drainStderr keeps the stderr pipe empty (a full pipe would stall the
// server) into the bounded tail, until EOF or until kill closes it.
func (t *stdioTransport) drainStderr() {
	defer close(t.drained)
	defer t.stderr.Close()
	drain(t.tail, t.stderr)
}

// drain copies r into w until EOF or an error. When kill's grace deadline
// ends the copy, which on a busy machine can happen before this goroutine
// ran at all, what the server wrote before it was killed is still in the
// pipe: it is read without waiting (readReady), so the last words are not
// lost to scheduling.
func drain(w io.Writer, r *os.File) {
	if _, err := io.Copy(w, r); errors.Is(err, os.ErrDeadlineExceeded) {
		readReady(w, r)
	}
}

// lastWords waits, when the server ended its stdout (it exited, as a
// rule), until its stderr is drained to EOF too, so that what it wrote
// before exiting is in the tail before kill closes the pipe; at most
// CleanupWait (a process it left behind may hold the pipe open) or until
// ctx ends.
func (t *stdioTransport) lastWords(ctx context.Context) {
	if !errors.Is(t.err(), ErrServerExited) {
		return
	}
	wait := time.NewTimer(CleanupWait)
	defer wait.Stop()
	select {
	case <-t.drained:
	case <-wait.C:
	case <-ctx.Done():
	}
}

// readLoop reads LF-terminated messages from stdout, each at most maxMsg
// bytes, and routes them until EOF, a read error or an oversized line, which
// fail the server. It returns with stdout closed.
func (t *stdioTransport) readLoop() {
	defer t.stdout.Close()
	r := bufio.NewReaderSize(t.stdout, 64<<10)
	var long []byte // accumulates a line longer than r's buffer
	for {
		chunk, err := r.ReadSlice('\n')
		if len(long)+len(chunk) > t.maxMsg+1 { // +1: the LF is not counted
			t.fail(ErrMessageTooLarge)
			return
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		if err != nil {
			// EOF, or kill closed the pipe. A partial last line is dropped.
			t.fail(ErrServerExited)
			return
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
		}
		t.dispatch(bytes.TrimRight(line, "\r\n"))
		long = nil
	}
}

// message is every JSON-RPC shape a server sends, decoded once.
type message struct {
	ID     json.RawMessage          `json:"id"`
	Method string                   `json:"method"`
	Params json.RawMessage          `json:"params"`
	Result json.RawMessage          `json:"result"`
	Error  *mcp.JSONRPCErrorDetails `json:"error"`
}

// route decodes one JSON-RPC message from a server and hands it on: a
// notification to notify, a request from the server to request, a response
// to response. Anything else (not JSON-RPC, empty) is ignored, as mcp-go
// does. Both transports read their servers' messages through it.
func route(data []byte, notify func(mcp.JSONRPCNotification), request, response func(message)) {
	if len(data) == 0 {
		return
	}
	var msg message
	if err := json.Unmarshal(data, &msg); err != nil {
		return
	}
	hasID := len(msg.ID) > 0 && string(msg.ID) != "null"
	switch {
	case msg.Method != "" && !hasID:
		var n mcp.JSONRPCNotification
		if json.Unmarshal(data, &n) == nil {
			notify(n)
		}
	case msg.Method != "":
		request(msg)
	case hasID:
		response(msg)
	}
}

// dispatch routes one line: a response to its waiting request, a
// notification to the handler, a request from the server to a fixed answer.
func (t *stdioTransport) dispatch(line []byte) {
	route(line, t.notify, t.answerServerRequest, t.deliver)
}

// notify hands a notification to the handler, if one is set.
func (t *stdioTransport) notify(n mcp.JSONRPCNotification) {
	t.notifyMu.RLock()
	handler := t.onNotify
	t.notifyMu.RUnlock()
	if handler != nil {
		handler(n)
	}
}

// deliver hands a response to the request waiting for it, if any.
func (t *stdioTransport) deliver(msg message) {
	var id mcp.RequestId
	if json.Unmarshal(msg.ID, &id) != nil {
		return
	}
	key := id.String()
	t.mu.Lock()
	waiting, ok := t.pending[key]
	delete(t.pending, key)
	t.mu.Unlock()
	if ok {
		// Never blocks: capacity 1 and one delivery per key.
		waiting <- &rpcResponse{ID: id, Result: msg.Result, Error: msg.Error}
	}
}

// answerServerRequest answers ping and refuses every other server-to-client
// request (we offer no sampling, roots or elicitation). The reply is written
// from the reader; a server that does not read its stdin stalls only itself.
func (t *stdioTransport) answerServerRequest(msg message) {
	_ = t.writeLine(context.Background(), append(serverRequestReply(msg), '\n'))
}

// serverRequestReply is the answer to a server-to-client request: an empty
// result for ping, "method not found" for everything else.
func serverRequestReply(msg message) []byte {
	if msg.Method == string(mcp.MethodPing) {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`, msg.ID)
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"method not found"}}`, msg.ID, mcp.METHOD_NOT_FOUND)
}

// aLongTimeAgo is a write deadline in the past: it makes a pending write
// return at once.
var aLongTimeAgo = time.Unix(1, 0)

// writeLine writes one whole line to the server's stdin. It returns early
// with ctx.Err() if ctx ends while it waits for another writer's line or
// while the server is not reading; a line cut part-way corrupts the stream,
// so that fails the server.
func (t *stdioTransport) writeLine(ctx context.Context, line []byte) error {
	select {
	case t.writing <- struct{}{}:
	case <-ctx.Done():
		// Another line is being written to a server that does not read
		// it (perhaps the reader's answer to a ping, which has no ctx).
		return ctx.Err()
	}
	defer func() { <-t.writing }()
	if err := t.err(); err != nil {
		return err
	}
	expired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = t.stdin.SetWriteDeadline(aLongTimeAgo)
		close(expired)
	})
	n, err := t.stdin.Write(line)
	if !stop() {
		<-expired
		_ = t.stdin.SetWriteDeadline(time.Time{})
	}
	switch {
	case err == nil:
		return nil
	case n == 0 && errors.Is(err, os.ErrDeadlineExceeded):
		return ctx.Err() // nothing written: the stream is intact
	case errors.Is(err, os.ErrDeadlineExceeded):
		t.fail(ErrServerBroken)
		return ctx.Err()
	default:
		if e := t.err(); e != nil {
			return e // closed by us, or already failed
		}
		t.fail(ErrServerBroken)
		return ErrServerBroken
	}
}

// SendRequest implements rpcConn: it writes the request and
// waits for its response, ctx's end, or the server's failure.
func (t *stdioTransport) SendRequest(ctx context.Context, req rpcRequest) (*rpcResponse, error) {
	line, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("mcp: marshal request: %w", err)
	}
	key := req.ID.String()
	response := make(chan *rpcResponse, 1)
	t.mu.Lock()
	if t.failErr != nil {
		t.mu.Unlock()
		return nil, t.failErr
	}
	t.pending[key] = response
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.pending, key)
		t.mu.Unlock()
	}()

	if err := t.writeLine(ctx, append(line, '\n')); err != nil {
		return nil, err
	}
	select {
	case r := <-response:
		return r, nil
	case <-t.failed:
		// A response routed just before the failure still counts.
		select {
		case r := <-response:
			return r, nil
		default:
			return nil, t.err()
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// SendNotification implements rpcConn.
func (t *stdioTransport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	line, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("mcp: marshal notification: %w", err)
	}
	return t.writeLine(ctx, append(line, '\n'))
}

// SetNotificationHandler sets the handler of the server's notifications
// (nil: they are dropped; only tests set one). The handler runs on
// the reader goroutine and must not block.
func (t *stdioTransport) SetNotificationHandler(handler func(mcp.JSONRPCNotification)) {
	t.notifyMu.Lock()
	defer t.notifyMu.Unlock()
	t.onNotify = handler
}

// shutdown asks the server to exit the MCP way, by closing its stdin, and
// fails pending requests. It does not wait and never blocks.
func (t *stdioTransport) shutdown() {
	t.fail(ErrServerClosed)
	// Closing unblocks a write in progress (the pipe is in the poller).
	t.stdinOnce.Do(func() { t.stdin.Close() })
}

// kill SIGKILLs the server's process group unless it is already reaped (its
// children were killed then), and closes our pipe ends so that the reader
// and the stderr drain return even if an escaped process still holds the
// other ends. It never blocks.
func (t *stdioTransport) kill() {
	t.shutdown()
	select {
	case <-t.exited:
	default:
		_ = subproc.KillGroup(t.pid)
	}
	t.stdout.Close()
	// The stderr drain gets a moment to read what the server already wrote
	// (its last words are for the log), then returns and closes its end;
	// a pipe without deadlines is closed at once.
	if t.stderr.SetReadDeadline(time.Now().Add(stderrGrace)) != nil {
		t.stderr.Close()
	}
}

// stderrGrace is how long kill lets the stderr drain read what is already
// in the pipe.
const stderrGrace = 50 * time.Millisecond

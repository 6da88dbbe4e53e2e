package acp

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/magi-code/magi-code/acp/jsonrpc"
	"github.com/magi-code/magi-code/internal/diaglog"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
)

// Output is where the agent's frames go: the process's one ordered writer
// (stages/writer), with its pending bound, output deadline and
// nonblocking stdout. Both methods are safe for concurrent use.
type Output interface {
	// Respond enqueues a frame at once, written inline when nothing is
	// pending: the answers that need no order against a turn's updates.
	Respond(frame []byte) error
	// Send enqueues a frame on the ordered edge behind every frame Sent
	// before it, waiting at most protocol.CriticalEventWait for room; an
	// error means it was not queued (the turn then fails).
	Send(frame []byte) error
}

// Options wire an Agent to its process.
type Options struct {
	Env    runner.Env     // the process environment (runner.ProcessEnv); Cwd is each session's
	Runner runner.Options // Invocation and the rest; Logf is set from Logf below
	NewID  func() string  // UUIDs in production
	Now    func() time.Time
	Out    Output
	// After is the clock of the permission expiry (time.After in
	// production): tests inject one they fire.
	After func(time.Duration) <-chan time.Time
	// Version is the build's version, shown in agentInfo.
	Version string
	Log     *diaglog.Log // nil logs nothing
	Logf    func(string, ...any)
}

// Agent is the ACP agent of one process: its JSON-RPC dispatch, its open
// sessions and the requests it sent the client. Line is called by the one
// goroutine that reads stdin; everything slow runs on the Agent's own
// goroutines, which Close waits for.
type Agent struct {
	opts  Options
	ctx   context.Context // ends at EOF: every turn is cancelled
	stop  context.CancelFunc
	group conc.WaitGroup

	mu          sync.Mutex
	initialized bool
	client      clientCaps
	sessions    map[string]*session
	opening     int // session/new, load and resume in progress (count against MaxSessions)
	slow        int // goRequest's requests in progress
	closed      bool
	// calls are the requests sent to the client, by id, waiting for their
	// answer; nextCall numbers them.
	calls    map[string]chan jsonrpc.Message
	nextCall uint64
}

// clientCaps are the client capabilities the agent uses.
type clientCaps struct {
	readText, writeText bool
	notices             bool // session.notices: the notice update
	compaction          bool // session.compaction: compaction_update
	// terminalOutput is Zed's _meta.terminal_output: a command's output
	// goes live to a display-only terminal (tools.go).
	terminalOutput bool
}

func (a *Agent) caps() clientCaps {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client
}

// New returns an agent that writes to opts.Out.
func New(opts Options) *Agent {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.After == nil {
		opts.After = time.After
	}
	if opts.Log == nil {
		opts.Log = diaglog.Discard()
	}
	opts.Runner.Logf = opts.Logf
	ctx, stop := context.WithCancel(context.Background())
	return &Agent{opts: opts, ctx: ctx, stop: stop, sessions: map[string]*session{}, calls: map[string]chan jsonrpc.Message{}}
}

// Line handles one input line (LF removed). It never blocks on a turn: slow
// methods run on the agent's goroutines.
func (a *Agent) Line(line []byte) {
	m, perr := jsonrpc.Parse(line)
	if perr != nil {
		a.respondError(perr.ID, perr.Code, "")
		return
	}
	switch m.Kind {
	case jsonrpc.KindResponse:
		a.answer(m)
	case jsonrpc.KindNotification:
		a.notification(m)
	case jsonrpc.KindRequest:
		a.request(m)
	}
}

// TooLarge answers a line over the input bound (MaxInputFrameBytes), given
// its first bytes; the reader skips the rest of it and goes on, so the
// connection stays usable. A request whose id could be read there gets
// -32602 with frame_too_large; a response to one of the agent's requests
// fails that request (as an error answer would); anything else is -32600
// with frame_too_large and a null id.
func (a *Agent) TooLarge(prefix []byte) {
	id, kind, ok := jsonrpc.Peek(prefix)
	switch {
	case ok && kind == jsonrpc.KindRequest && !id.IsZero():
		a.respondError(id, jsonrpc.CodeInvalidParams, protocol.CodeFrameTooLarge)
	case ok && kind == jsonrpc.KindResponse && !id.IsZero():
		a.answer(jsonrpc.Message{Kind: jsonrpc.KindResponse, ID: id,
			Error: &jsonrpc.WireError{Code: jsonrpc.CodeInvalidRequest, Message: "frame too large"}})
	default:
		a.respondError(jsonrpc.Null, jsonrpc.CodeInvalidRequest, protocol.CodeFrameTooLarge)
	}
}

// request dispatches one request. Parameters are decoded into the method's
// struct; anything that does not decode, or breaks the method's rules, is
// -32602 with invalid_params.
func (a *Agent) request(m jsonrpc.Message) {
	if m.Method != mInitialize && !a.isInitialized() {
		// ACP: initialize comes first. Not a parse problem, a state one.
		a.respondError(m.ID, jsonrpc.CodeInvalidRequest, protocol.CodeNotInitialized)
		return
	}
	switch m.Method {
	case mInitialize:
		a.initialize(m)
	case mAuthenticate:
		a.authenticate(m)
	case mSessionNew:
		a.goRequest(m, a.sessionNew)
	case mSessionLoad:
		a.goRequest(m, a.sessionLoad)
	case mSessionResume:
		a.goRequest(m, a.sessionResume)
	case mSessionList:
		a.goRequest(m, a.sessionList)
	case mSessionClose:
		a.goRequest(m, a.sessionClose)
	case mSessionPrompt:
		a.prompt(m)
	case mSessionSetMode:
		a.setMode(m)
	case mSessionSetConfig:
		a.setConfigOption(m)
	default:
		a.respondError(m.ID, jsonrpc.CodeMethodNotFound, protocol.CodeUnsupportedMethod)
	}
}

// notification handles one notification; unknown ones are ignored, as
// JSON-RPC requires (no answer to a notification).
func (a *Agent) notification(m jsonrpc.Message) {
	switch m.Method {
	case mSessionCancel:
		var p struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(m.Params, &p) != nil {
			return
		}
		if s := a.session(p.SessionID); s != nil {
			s.cancelTurn()
		}
	case mCancelRequest:
		// The client cancels one of its requests to us: none of ours is
		// long enough to stop early but the prompt, which session/cancel
		// stops. Nothing to do.
	}
}

// goRequest runs a slow request on the agent's goroutines, at most
// MaxSlowRequests at once: one more is -32603 with request_limit, so a
// client that floods them costs bounded memory.
func (a *Agent) goRequest(m jsonrpc.Message, f func(jsonrpc.Message)) {
	a.mu.Lock()
	closed, full := a.closed, a.slow >= MaxSlowRequests
	if !closed && !full {
		a.slow++
	}
	a.mu.Unlock()
	switch {
	case closed:
		return
	case full:
		a.respondError(m.ID, jsonrpc.CodeInternalError, protocol.CodeRequestLimit)
		return
	}
	a.group.Go(func() {
		defer func() {
			a.mu.Lock()
			a.slow--
			a.mu.Unlock()
		}()
		f(m)
	})
}

// MaxSlowRequests bounds the session/new, load, resume, list and close
// requests in progress at once.
const MaxSlowRequests = 8

func (a *Agent) isInitialized() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.initialized
}

func (a *Agent) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// respond answers a request with result (a complete JSON value) at once.
func (a *Agent) respond(id jsonrpc.ID, result []byte) {
	a.out(jsonrpc.AppendResult(nil, id, result), false)
}

// respondError answers a request with a JSON-RPC error at once.
func (a *Agent) respondError(id jsonrpc.ID, code int, stable protocol.Code) {
	a.out(jsonrpc.AppendError(nil, id, code, stable), false)
}

// out writes one frame: Respond, or Send on the ordered edge. A frame over
// the output bound is never written: it is a bug upstream, replaced by an
// error answer for a response and dropped otherwise (logged).
func (a *Agent) out(frame []byte, ordered bool) error {
	if len(frame) > protocol.MaxOutputFrameBytes {
		a.opts.Logf("acp: frame of %d bytes over the output bound not sent", len(frame))
		return errFrameTooLarge
	}
	if ordered {
		return a.opts.Out.Send(frame)
	}
	return a.opts.Out.Respond(frame)
}

// call sends a request to the client on the ordered edge and returns the
// channel its answer arrives on, and its id; forget drops it.
func (a *Agent) call(method string, params []byte) (jsonrpc.ID, chan jsonrpc.Message, error) {
	a.mu.Lock()
	a.nextCall++
	id := jsonrpc.NumberID(a.nextCall)
	ch := make(chan jsonrpc.Message, 1)
	a.calls[id.String()] = ch
	a.mu.Unlock()
	if err := a.out(jsonrpc.AppendRequest(nil, id, method, params), true); err != nil {
		a.forget(id)
		return id, nil, err
	}
	return id, ch, nil
}

// forget stops waiting for the answer to id: a late answer changes nothing.
func (a *Agent) forget(id jsonrpc.ID) {
	a.mu.Lock()
	delete(a.calls, id.String())
	a.mu.Unlock()
}

// cancelCall gives up on the request id: a late answer changes nothing,
// and $/cancel_request tells the client.
func (a *Agent) cancelCall(id jsonrpc.ID) {
	a.forget(id)
	_ = a.out(jsonrpc.AppendNotification(nil, mCancelRequest, []byte(`{"requestId":`+id.String()+`}`)), true)
}

// answer delivers the client's answer to one of our requests; an answer
// nobody waits for (late, or never asked) is dropped.
func (a *Agent) answer(m jsonrpc.Message) {
	a.mu.Lock()
	ch := a.calls[m.ID.String()]
	delete(a.calls, m.ID.String())
	a.mu.Unlock()
	if ch != nil {
		ch <- m // capacity 1, one answer
	}
}

// Close ends the agent at EOF: every turn is cancelled (its tools' process
// groups killed), every session's leases released and its MCP servers
// stopped. It returns when done (true) or when ctx ends (false: the rest
// is left to process exit, and the agent may still send).
func (a *Agent) Close(ctx context.Context) bool {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.stop()
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The turns end first (cancelled), then every session still open,
		// also one a session/new in flight just opened.
		a.group.Wait()
		a.mu.Lock()
		sessions := make([]*session, 0, len(a.sessions))
		for _, s := range a.sessions {
			sessions = append(sessions, s)
		}
		clear(a.sessions)
		a.mu.Unlock()
		for _, s := range sessions {
			s.close(ctx)
		}
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

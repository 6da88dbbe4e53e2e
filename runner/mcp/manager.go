package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/sourcegraph/conc"
)

// CleanupWait bounds the cleanup Start does after a failed or cancelled
// startup (the protocol's "Cleanup wait"); servers that failed are killed at
// once, connected ones get this long to exit after shutdown.
const CleanupWait = 2000 * time.Millisecond

// ErrUnknownTool is returned by Call for a name that Tools did not offer.
var ErrUnknownTool = errors.New("mcp: unknown tool")

// ServerDef is one enabled, approved server. Exactly one of Command (stdio)
// and URL (streamable HTTP) is set. Env adds to the minimal environment of a
// stdio server; Cwd is its working directory ("" means ours). Headers are
// sent with every request to an HTTP server (credentials: never logged).
// EnabledTools, when non-nil, is the allow list of the server's tools
// offered (by the names the server lists; [] offers none), and
// DisabledTools is removed after it. StartupTimeout bounds the handshake
// and the first tools/list, ToolTimeout each call (0: no bound of their
// own; ctx still applies).
type ServerDef struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Cwd     string
	Headers map[string]string

	EnabledTools   []string
	DisabledTools  []string
	StartupTimeout time.Duration
	ToolTimeout    time.Duration
}

// offers reports whether the server's tool name is offered: in
// EnabledTools when that is set, and not in DisabledTools.
func (d *ServerDef) offers(name string) bool {
	if d.EnabledTools != nil && !slices.Contains(d.EnabledTools, name) {
		return false
	}
	return !slices.Contains(d.DisabledTools, name)
}

// ErrToolTimeout is returned by Call when the server's ToolTimeout ended
// the call (the server was sent notifications/cancelled).
var ErrToolTimeout = errors.New("mcp: tool call timed out")

// ErrStartupTimeout is a server's StartError when StartupTimeout ended its
// handshake or first tools/list.
var ErrStartupTimeout = errors.New("mcp: startup timed out")

// Tool is one tool of a connected server as offered to the model.
type Tool struct {
	// FullName is mcp__SERVER__TOOL, sanitized to [A-Za-z0-9_-], at most
	// MaxToolNameBytes, unique within the manager (see names.go).
	FullName string
	// Server and Name are the server's and the tool's names as defined.
	Server, Name string
	// Description is the server's description, untrusted text for the model.
	Description string
	// InputSchema is the tool's JSON Schema as the server sent it.
	InputSchema json.RawMessage
	// ReadOnly is the server's readOnlyHint annotation (false when absent).
	ReadOnly bool
}

// StartError is a server's startup failure. Stderr is the tail of a stdio
// server's stderr (untrusted; for logs, never for the wire).
type StartError struct {
	Server string
	Err    error
	Stderr []byte
}

func (e *StartError) Error() string { return fmt.Sprintf("mcp: server %q: %v", e.Server, e.Err) }
func (e *StartError) Unwrap() error { return e.Err }

// conn is one server connection, stdio or HTTP.
type conn struct {
	name   string
	client *session
	stdio  *stdioTransport // nil for HTTP
	http   *httpConn       // nil for stdio
	// toolTimeout bounds each call (ServerDef.ToolTimeout; 0: none).
	toolTimeout time.Duration
	// wg owns a stdio server's goroutines.
	wg conc.WaitGroup
	// done is closed when the server is gone: for stdio when the process is
	// reaped and both pipes are drained, for HTTP when the session DELETE
	// returned.
	done chan struct{}
}

// shutdown starts the MCP shutdown: stdin closed, or the session DELETE on
// its way on a goroutine of g. It never blocks.
func (s *conn) shutdown(g *conc.WaitGroup) {
	if s.stdio != nil {
		s.stdio.shutdown()
		return
	}
	g.Go(s.http.closeSession)
}

// kill ends the server by force. It never blocks.
func (s *conn) kill(g *conc.WaitGroup) {
	if s.stdio != nil {
		s.stdio.kill()
		return
	}
	s.http.kill()
	g.Go(s.http.closeSession) // returns at once now; a no-op if already run
}

// Manager holds the connected servers and their tools for a child's
// lifetime. Tools and Call are safe for concurrent use; Close may be called
// more than once.
type Manager struct {
	logf    func(string, ...any)
	servers []*conn
	tools   []Tool
	byName  map[string]int // FullName -> index in tools
	owner   []*conn        // owner[i] serves tools[i]
	// wg owns one watcher per stdio server, which closes its done channel,
	// and the closer of each HTTP server.
	wg conc.WaitGroup

	// mu guards servers during Start, which adds them concurrently.
	mu sync.Mutex
}

// Start connects every server of defs concurrently: spawn or dial, then
// the handshake and tools/list under ctx. It returns only when every server is
// connected, or none is: on the first failure it cancels the others, shuts
// down and cleans every server (at most CleanupWait) and returns a
// *StartError; if ctx ends first it does the same and returns ctx.Err().
// logf receives diagnostics (nil discards them).
func Start(ctx context.Context, defs []ServerDef, logf func(string, ...any)) (*Manager, error) {
	m, _, err := start(ctx, defs, logf, false)
	return m, err
}

// StartEach connects every server of defs concurrently, as Start does, but
// a server that fails is left out (killed, as connect leaves it) instead of
// failing the others: the servers an editor hands over, which the person
// configured there. failed names the servers left out, in defs' order. If
// ctx ends first every server is cleaned and the error is ctx.Err().
func StartEach(ctx context.Context, defs []ServerDef, logf func(string, ...any)) (m *Manager, failed []string, err error) {
	return start(ctx, defs, logf, true)
}

func start(ctx context.Context, defs []ServerDef, logf func(string, ...any), each bool) (*Manager, []string, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	m := &Manager{logf: logf, byName: make(map[string]int)}
	startCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	results := make([][]mcp.Tool, len(defs))
	connected := make([]*conn, len(defs))
	var firstErr error
	var errOnce sync.Once
	var connects conc.WaitGroup
	for i, def := range defs {
		connects.Go(func() {
			s, tools, err := m.connect(startCtx, def)
			if err != nil {
				if each {
					logf("mcp: server %q left out: %v", def.Name, err)
					return
				}
				errOnce.Do(func() { firstErr = err })
				cancel(err) // the others stop at once
				return
			}
			connected[i], results[i] = s, tools
		})
	}
	connects.Wait()

	if err := ctx.Err(); err != nil || firstErr != nil {
		if err == nil {
			err = firstErr
		}
		logf("mcp: startup failed, cleaning %d servers: %v", len(m.servers), err)
		cleanupCtx, stop := context.WithTimeout(context.WithoutCancel(ctx), CleanupWait)
		defer stop()
		if cerr := m.Close(cleanupCtx); cerr != nil {
			logf("mcp: startup cleanup: servers killed after %v", CleanupWait)
		}
		return nil, nil, err
	}

	taken := make(map[string]bool)
	var failed []string
	for i, def := range defs {
		if connected[i] == nil {
			failed = append(failed, def.Name)
			continue
		}
		for _, t := range results[i] {
			if def.offers(t.Name) {
				m.addTool(def.Name, t, connected[i], taken)
			}
		}
	}
	return m, failed, nil
}

// connect starts one server and lists its tools. On failure the server is
// already killed (it never became usable) and the error is a *StartError.
func (m *Manager) connect(ctx context.Context, def ServerDef) (*conn, []mcp.Tool, error) {
	began := time.Now()
	s := &conn{name: def.Name, toolTimeout: def.ToolTimeout}
	var tr rpcConn
	switch {
	case def.Command != "" && def.URL == "":
		st, err := spawnStdio(def, MaxMessageBytes)
		if err != nil {
			return nil, nil, &StartError{Server: def.Name, Err: err}
		}
		s.stdio, tr, s.done = st, st, make(chan struct{})
		s.wg.Go(st.waitLoop)
		s.wg.Go(st.drainStderr)
		s.wg.Go(st.readLoop)
	case def.URL != "" && def.Command == "":
		hc, err := newHTTPConn(def.URL, def.Headers)
		if err != nil {
			return nil, nil, &StartError{Server: def.Name, Err: err}
		}
		s.http, tr, s.done = hc, hc, hc.closed
	default:
		return nil, nil, &StartError{Server: def.Name, Err: errors.New("exactly one of command and url is required")}
	}
	m.track(s)

	s.client = newSession(tr, def.Name, m.logf)
	startCtx, stop := ctx, context.CancelFunc(func() {})
	if def.StartupTimeout > 0 {
		startCtx, stop = context.WithTimeoutCause(ctx, def.StartupTimeout, ErrStartupTimeout)
	}
	tools, err := initialize(startCtx, s.client)
	timedOut := err != nil && ctx.Err() == nil && context.Cause(startCtx) == ErrStartupTimeout
	stop()
	if err != nil {
		if s.stdio != nil {
			s.stdio.lastWords(ctx)
		}
		s.kill(&m.wg)
		serr := &StartError{Server: def.Name, Err: err}
		if s.stdio != nil {
			// kill ends the drain (EOF, or its short read deadline): the
			// tail is complete only once the drain has returned.
			<-s.stdio.drained
			serr.Stderr, _ = s.stdio.tail.Bytes()
			if e := s.stdio.err(); e != nil && ctx.Err() == nil && !timedOut {
				serr.Err = e // the server's own failure says more than the client's
			}
		}
		if timedOut {
			serr.Err = fmt.Errorf("%w after %v", ErrStartupTimeout, def.StartupTimeout)
		}
		m.logf("mcp: server %q failed at startup after %v: %v", def.Name, time.Since(began).Round(time.Millisecond), serr.Err)
		return nil, nil, serr
	}
	m.logf("mcp: server %q connected in %v, %d tools", def.Name, time.Since(began).Round(time.Millisecond), len(tools))
	return s, tools, nil
}

// track registers s (and the watcher of a stdio server), so that Close
// reaches it even when its startup fails.
func (m *Manager) track(s *conn) {
	m.mu.Lock()
	m.servers = append(m.servers, s)
	m.mu.Unlock()
	if s.stdio == nil {
		return
	}
	m.wg.Go(func() {
		defer close(s.done)
		if r := s.wg.WaitAndRecover(); r != nil {
			m.logf("mcp: server %q goroutine panicked: %v", s.name, r.Value)
		}
		// Its waitLoop has returned: the process state is set.
		if ps := s.stdio.cmd.ProcessState; ps != nil {
			m.logf("mcp: server %q exited: %s", s.name, ps)
		}
		// Its stderr drain has returned too: the tail is complete. (Close
		// waits for done, so a failed start logs this before initialize
		// answers.)
		tail, _ := s.stdio.tail.Bytes()
		logStderr(m.logf, s.name, tail)
	})
}

func initialize(ctx context.Context, c *session) ([]mcp.Tool, error) {
	if err := c.open(ctx); err != nil {
		return nil, err
	}
	return c.listTools(ctx)
}

func (m *Manager) addTool(serverName string, t mcp.Tool, s *conn, taken map[string]bool) {
	tool := Tool{
		FullName:    uniqueName(fullToolName(serverName, t.Name), taken),
		Server:      serverName,
		Name:        t.Name,
		Description: t.Description,
		ReadOnly:    t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint,
	}
	// Tool.MarshalJSON resolves InputSchema versus RawInputSchema.
	if encoded, err := json.Marshal(t); err == nil {
		var fields struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(encoded, &fields) == nil {
			tool.InputSchema = fields.InputSchema
		}
	}
	if len(tool.InputSchema) == 0 {
		tool.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	m.byName[tool.FullName] = len(m.tools)
	m.tools = append(m.tools, tool)
	m.owner = append(m.owner, s)
}

// Tools returns a copy of every tool: servers in defs order, each server's
// tools in the order it listed them.
func (m *Manager) Tools() []Tool {
	return append([]Tool(nil), m.tools...)
}

// Call calls the tool fullName (a Tool.FullName) with args (a JSON object;
// empty means {}) under ctx, and returns its result as text cut to
// maxResultBytes (<= 0: no cut beyond MaxMessageBytes). isError is the
// tool's own error flag; a JSON-RPC error from the server (unknown tool,
// invalid params) also comes back as isError text for the model. err is
// ctx's error when ctx ended, ErrUnknownTool, or the connection's failure
// (ErrMessageTooLarge, ErrServerExited, ...). The text is untrusted.
func (m *Manager) Call(ctx context.Context, fullName string, args json.RawMessage, maxResultBytes int) (text string, isError bool, err error) {
	i, ok := m.byName[fullName]
	if !ok {
		return "", false, ErrUnknownTool
	}
	tool, s := m.tools[i], m.owner[i]
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	callCtx := ctx
	if s.toolTimeout > 0 {
		var stop context.CancelFunc
		callCtx, stop = context.WithTimeoutCause(ctx, s.toolTimeout, ErrToolTimeout)
		defer stop()
	}
	res, err := s.client.callTool(callCtx, tool.Name, args)
	if err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		if context.Cause(callCtx) == ErrToolTimeout {
			return "", false, fmt.Errorf("%w after %v", ErrToolTimeout, s.toolTimeout)
		}
		var cerr *connError
		if errors.As(err, &cerr) {
			if s.stdio != nil && s.stdio.err() != nil {
				return "", false, s.stdio.err()
			}
			return "", false, err
		}
		return bound("MCP error: "+err.Error(), maxResultBytes), true, nil
	}
	return bound(renderResult(res), maxResultBytes), res.IsError, nil
}

// Close shuts every server down first (stdin closed, session DELETE sent),
// then waits for them until ctx ends; what is left then is killed (process
// groups SIGKILLed, HTTP requests aborted) and Close returns ctx.Err()
// without waiting for the kills to land. It never blocks past ctx.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	servers := append([]*conn(nil), m.servers...)
	m.mu.Unlock()
	// docs/protocol.md, Exit status: "All connected MCP servers receive shutdown before their joins
	// or HTTP session deletion can wait."
	for _, s := range servers {
		s.shutdown(&m.wg)
	}
	for _, s := range servers {
		select {
		case <-s.done:
		case <-ctx.Done():
			var left []string
			for _, s := range servers {
				select {
				case <-s.done:
				default:
					left = append(left, s.name)
					s.kill(&m.wg)
				}
			}
			m.logf("mcp: killed servers still running at close: %s", strings.Join(left, ", "))
			return ctx.Err()
		}
	}
	return nil
}

// Bounds of a server's stderr in the diagnostic log.
const (
	stderrLogLines     = 64
	stderrLogLineBytes = 1024
)

// logStderr logs the last lines of a server's stderr tail, each bounded
// (untrusted text: for logs only, never for the wire).
func logStderr(logf func(string, ...any), name string, tail []byte) {
	lines := strings.Split(strings.TrimRight(string(tail), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return
	}
	if len(lines) > stderrLogLines {
		logf("mcp: server %q stderr: %d earlier lines not logged", name, len(lines)-stderrLogLines)
		lines = lines[len(lines)-stderrLogLines:]
	}
	for _, line := range lines {
		logf("mcp: server %q stderr: %s", name, cutMarked(line, stderrLogLineBytes))
	}
}

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/mark3labs/mcp-go/mcp"
)

// rpcRequest is one JSON-RPC request to a server. Header holds the HTTP
// headers the protocol asks for on a streamable HTTP POST; stdio ignores it.
type rpcRequest struct {
	JSONRPC string        `json:"jsonrpc"`
	ID      mcp.RequestId `json:"id"`
	Method  string        `json:"method"`
	Params  any           `json:"params,omitempty"`
	Header  http.Header   `json:"-"`
}

// rpcResponse is a server's answer to one rpcRequest: a Result or an Error.
type rpcResponse struct {
	ID     mcp.RequestId
	Result json.RawMessage
	Error  *mcp.JSONRPCErrorDetails
}

// rpcConn is what a session needs of its transport (stdioTransport,
// httpConn). An error from either method is the connection's failure (or
// ctx's end), never the server's JSON-RPC answer.
type rpcConn interface {
	SendRequest(ctx context.Context, req rpcRequest) (*rpcResponse, error)
	SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error
}

// connError marks a failure of the connection itself, as opposed to the
// server's JSON-RPC error answer or a result that does not decode.
type connError struct{ err error }

func (e *connError) Error() string { return e.err.Error() }
func (e *connError) Unwrap() error { return e.err }

// Bounds of the handshake and of a server's answers.
const (
	// discoverTimeout bounds the server/discover probe: a server older than
	// the stateless protocol may ignore the method instead of refusing it.
	discoverTimeout = 5 * time.Second
	// cancelNoticeTimeout bounds the notifications/cancelled sent for a
	// request whose ctx ended.
	cancelNoticeTimeout = 5 * time.Second
	// Bounds of tools/list: a server that keeps answering with new cursors,
	// or with more tools than a model could be offered, fails its startup
	// instead of growing the list (and our memory) for ever.
	maxToolPages     = 100
	maxTools         = 1000
	maxToolListBytes = 16 << 20 // all pages' results together
	maxCursorBytes   = 4096
	// maxCallAttempts bounds the requests of one tools/call whose server
	// keeps asking to retry without asking for input (load shedding).
	maxCallAttempts = 3
	// maxServerText bounds a server's error message as we pass it on (to
	// the model or the log).
	maxServerText = 1024
)

var (
	errToolPages    = fmt.Errorf("tools/list: more than %d pages", maxToolPages)
	errTooManyTools = fmt.Errorf("tools/list: more than %d tools or %d MiB", maxTools, maxToolListBytes>>20)
	errCursorRepeat = errors.New("tools/list: the server repeated a cursor")
	errCursorLong   = fmt.Errorf("tools/list: a cursor over %d bytes", maxCursorBytes)
	errNeedsInput   = errors.New("the server asked for input the agent cannot give (no sampling, elicitation or roots)")
	errRetryLater   = fmt.Errorf("the server asked to retry %d times in a row", maxCallAttempts)
)

// clientInfo is how magi-code introduces itself to a server.
var clientInfo = mcp.Implementation{Name: "magi-code", Version: "1"}

// session is the MCP client side of one connection: the handshake, tools/list
// and tools/call over an rpcConn. It speaks both eras of the protocol: the
// stateless core (2026-07-28 and later: server/discover, then the version,
// identity and capabilities in the _meta of every request, and on HTTP the
// Mcp-Method, Mcp-Name and Mcp-Param-* headers), and the initialize handshake
// of earlier versions, to which it falls back when the probe fails. It
// declares no client capability (no sampling, roots or elicitation), and
// answers none of the server's requests but ping (the transports do that).
//
// open and listTools run once, before the session is shared; call is then
// safe for concurrent use (version and tools no longer change).
type session struct {
	conn rpcConn
	// setVersion is set for streamable HTTP (httpConn.SetProtocolVersion),
	// which carries the protocol version in a header; nil for stdio.
	setVersion func(string)
	name       string // the server's, for the log
	logf       func(string, ...any)

	lastID  atomic.Int64
	version string // the negotiated protocol version
	// declaresTools is the server's tools capability: without it, a
	// tools/list refused as an unknown method means no tools.
	declaresTools bool
	tools         map[string]mcp.Tool // listed tools by name, for Mcp-Param-* headers
}

// newSession returns the client side of conn to the server name; it sends
// nothing yet.
func newSession(conn rpcConn, name string, logf func(string, ...any)) *session {
	s := &session{conn: conn, name: name, logf: logf}
	if hc, ok := conn.(*httpConn); ok {
		s.setVersion = hc.SetProtocolVersion
	}
	return s
}

func (s *session) modern() bool { return mcp.IsModernProtocol(s.version) }

// overHTTP reports a streamable HTTP connection.
func (s *session) overHTTP() bool { return s.setVersion != nil }

func (s *session) useVersion(v string) {
	s.version = v
	if s.setVersion != nil {
		s.setVersion(v)
	}
}

// open establishes the protocol version: server/discover at the newest
// stateless version (once more at a version the server names, if it
// refuses ours), else the initialize handshake and notifications/initialized.
func (s *session) open(ctx context.Context) error {
	err := s.discover(ctx)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	// Anything else says the server predates the stateless core: an error
	// answer, no answer in time, or (HTTP) a status such as 400 for a
	// request without a session.
	s.logf("mcp: server %q: server/discover failed (%v); trying initialize", s.name, err)
	return s.handshake(ctx)
}

func (s *session) discover(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	defer cancel()
	version := mcp.LATEST_PROTOCOL_VERSION
	for range 2 {
		s.useVersion(version)
		var res mcp.DiscoverResult
		err := s.call(ctx, mcp.MethodServerDiscover, nil, &res)
		if err == nil && slices.Contains(res.SupportedVersions, version) {
			s.declaresTools = res.Capabilities.Tools != nil
			return nil
		}
		if err == nil {
			// Not a stateless server's answer (a lenient server answers
			// any method): drive it through the handshake.
			s.useVersion("")
			return errors.New("server/discover: the answer does not list our version")
		}
		var unsupported mcp.UnsupportedProtocolVersionError
		if errors.As(err, &unsupported) {
			if v := mcp.NegotiateMutuallySupportedVersion(unsupported.Supported); v != version && mcp.IsModernProtocol(v) {
				version = v
				continue
			}
		}
		s.useVersion("")
		return err
	}
	s.useVersion("")
	return errors.New("server/discover: no protocol version in common")
}

func (s *session) handshake(ctx context.Context) error {
	params := struct {
		ProtocolVersion string                 `json:"protocolVersion"`
		ClientInfo      mcp.Implementation     `json:"clientInfo"`
		Capabilities    mcp.ClientCapabilities `json:"capabilities"`
	}{mcp.LATEST_LEGACY_PROTOCOL_VERSION, clientInfo, mcp.ClientCapabilities{}}
	var res mcp.InitializeResult
	if err := s.call(ctx, mcp.MethodInitialize, params, &res); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if !mcp.IsValidProtocolVersion(res.ProtocolVersion) || mcp.IsModernProtocol(res.ProtocolVersion) {
		return fmt.Errorf("initialize: unsupported protocol version %q", bounded(res.ProtocolVersion))
	}
	s.useVersion(res.ProtocolVersion)
	s.declaresTools = res.Capabilities.Tools != nil
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION}
	n.Method = string(mcp.MethodNotificationInitialized)
	if err := s.conn.SendNotification(ctx, n); err != nil {
		return fmt.Errorf("initialized notification: %w", &connError{err})
	}
	return nil
}

// bounded cuts a server-chosen name for an error message or the log.
func bounded(v string) string { return cleanText(v, 32) }

// listTools lists every page of the server's tools, within the bounds
// above, and remembers them for tools/call. A server that declared no tools
// capability and refuses tools/list as an unknown method has none. On a
// modern HTTP connection a tool whose Mcp-Param header annotations are
// invalid is left out, as the protocol asks, and logged.
func (s *session) listTools(ctx context.Context) ([]mcp.Tool, error) {
	var tools []mcp.Tool
	seen := map[mcp.Cursor]bool{"": true}
	var cursor mcp.Cursor
	size := 0
	for page := 0; ; page++ {
		if page == maxToolPages {
			return nil, errToolPages
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var raw json.RawMessage
		if err := s.call(ctx, mcp.MethodToolsList, params, &raw); err != nil {
			if page == 0 && !s.declaresTools && errors.Is(err, mcp.ErrMethodNotFound) {
				return nil, nil
			}
			return nil, fmt.Errorf("list tools: %w", err)
		}
		if size += len(raw); size > maxToolListBytes {
			return nil, errTooManyTools
		}
		var res mcp.ListToolsResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, errors.New("list tools: the result does not decode")
		}
		if tools = append(tools, res.Tools...); len(tools) > maxTools {
			return nil, errTooManyTools
		}
		cursor = res.NextCursor
		switch {
		case cursor == "":
		case len(cursor) > maxCursorBytes:
			return nil, errCursorLong
		case seen[cursor]:
			return nil, errCursorRepeat
		default:
			seen[cursor] = true
			continue
		}
		break
	}
	if s.overHTTP() && s.modern() {
		valid := tools[:0]
		for _, t := range tools {
			if err := mcp.ValidateParamHeaderAnnotations(&t); err != nil {
				s.logf("mcp: server %q: tool %q left out: invalid x-mcp-header annotations", s.name, bounded(t.Name))
				continue
			}
			valid = append(valid, t)
		}
		tools = valid
	}
	s.tools = make(map[string]mcp.Tool, len(tools))
	for _, t := range tools {
		s.tools[t.Name] = t
	}
	return tools, nil
}

// callTool calls the tool name with args (a JSON object). A result that
// asks for input fails (we offer none); one that asks to retry without
// input is sent again with its state, maxCallAttempts requests in all.
func (s *session) callTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	params := struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		mcp.MultiRoundTripParams
	}{Name: name, Arguments: args}
	for attempt := 1; ; attempt++ {
		var raw json.RawMessage
		if err := s.call(ctx, mcp.MethodToolsCall, params, &raw); err != nil {
			return nil, err
		}
		res, err := mcp.ParseCallToolResult(&raw)
		if err != nil {
			return nil, err
		}
		if !res.NeedsInput() {
			return res, nil
		}
		if len(res.InputRequests) > 0 {
			return nil, errNeedsInput
		}
		if attempt == maxCallAttempts {
			return nil, errRetryLater
		}
		params.RequestState = res.RequestState
	}
}

// call sends one request and decodes its result into out. Its error is a
// *connError for the connection's failure, the server's JSON-RPC error
// (mcp's typed errors), or a decoding error.
func (s *session) call(ctx context.Context, method mcp.MCPMethod, params any, out any) error {
	req := rpcRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(s.lastID.Add(1)), Method: string(method)}
	var err error
	if req.Params, req.Header, err = s.frame(method, params); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return &connError{err}
	}
	resp, err := s.conn.SendRequest(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			s.cancelled(ctx, req)
		}
		return &connError{err}
	}
	if resp.Error != nil {
		return serverError(resp.Error)
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return fmt.Errorf("%s: the result does not decode", method)
	}
	return nil
}

// frame returns the params as sent and the HTTP headers of a request. On a
// modern connection the params carry the _meta the protocol requires, and
// the headers name the method (and the tool or resource), plus the
// Mcp-Param-* headers of a listed tool's x-mcp-header arguments.
func (s *session) frame(method mcp.MCPMethod, params any) (any, http.Header, error) {
	if !s.modern() {
		return params, nil, nil
	}
	fields := map[string]json.RawMessage{}
	if params != nil {
		encoded, err := json.Marshal(params)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", method, err)
		}
		if err := json.Unmarshal(encoded, &fields); err != nil {
			return nil, nil, fmt.Errorf("%s: params are not an object", method)
		}
	}
	meta, err := json.Marshal(map[string]any{
		mcp.MetaKeyProtocolVersion:    s.version,
		mcp.MetaKeyClientCapabilities: mcp.ClientCapabilities{},
		mcp.MetaKeyClientInfo:         clientInfo,
	})
	if err != nil {
		return nil, nil, err
	}
	fields["_meta"] = meta
	if !s.overHTTP() {
		return fields, nil, nil
	}
	encoded, err := json.Marshal(fields)
	if err != nil {
		return nil, nil, err
	}
	header := http.Header{}
	for k, v := range mcp.StandardHeaders(s.version, method, encoded) {
		header.Set(k, v)
	}
	if method == mcp.MethodToolsCall {
		var call struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(encoded, &call) == nil {
			if t, ok := s.tools[call.Name]; ok {
				for k, v := range mcp.GenerateParamHeaders(&t, encoded) {
					header.Set(k, v)
				}
			}
		}
	}
	return fields, header, nil
}

// cancelled tells the server that a request whose ctx ended is no longer
// wanted, off the caller's path and bounded (a server that does not read
// holds up nothing). On a stateless HTTP connection ending the request's
// stream is the cancellation; before that version a server must not take a
// dropped connection for one. The handshake is never cancelled this way.
func (s *session) cancelled(ctx context.Context, req rpcRequest) {
	if (s.overHTTP() && s.modern()) || s.version == "" || req.Method == string(mcp.MethodInitialize) || req.Method == string(mcp.MethodServerDiscover) {
		return
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION}
	n.Method = string(mcp.MethodNotificationCancelled)
	n.Params.AdditionalFields = map[string]any{"requestId": req.ID, "reason": ctx.Err().Error()}
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelNoticeTimeout)
		defer cancel()
		_ = s.conn.SendNotification(ctx, n)
	}()
}

// serverError is a server's JSON-RPC error as mcp's typed error (so that
// errors.As still finds, say, mcp.UnsupportedProtocolVersionError), its text
// cut to maxServerText and its control characters replaced: the text goes
// to the model and to the log.
func serverError(d *mcp.JSONRPCErrorDetails) error {
	err := d.AsError()
	return &boundedError{err: err, text: cleanText(err.Error(), maxServerText)}
}

type boundedError struct {
	err  error
	text string
}

func (e *boundedError) Error() string { return e.text }
func (e *boundedError) Unwrap() error { return e.err }

// cleanText cuts v to at most max bytes of valid UTF-8 (marking the cut) and
// replaces control characters with spaces.
func cleanText(v string, max int) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(cutMarked(v, max), "\uFFFD"))
}

// cutMarked cuts v to at most max bytes at a UTF-8 boundary and marks the
// cut ("…[cut]"); shorter text is returned as it is.
func cutMarked(v string, max int) string {
	if len(v) <= max {
		return v
	}
	return strings.ToValidUTF8(v[:max], "") + "…[cut]"
}

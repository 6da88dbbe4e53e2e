package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/magi-code/magi-code/runner/origin"
)

// MaxHTTPBodyBytes bounds one HTTP response body from a streamable HTTP
// server: one message of at most MaxMessageBytes plus room for the
// notifications an SSE response may carry before it.
const MaxHTTPBodyBytes = 2 * MaxMessageBytes

// Streamable HTTP header names (MCP transports specification).
const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "Mcp-Protocol-Version"
)

var (
	// ErrHTTPStatus is wrapped by the error of a request the server answered
	// with an HTTP status that carries no JSON-RPC answer.
	ErrHTTPStatus = errors.New("mcp: unexpected HTTP status")
	// errStreamEnded: an SSE response ended before the response to its
	// request.
	errStreamEnded = errors.New("mcp: event stream ended before the response")
	// errContentType: a response that is neither JSON nor an event stream.
	errContentType = errors.New("mcp: unexpected response content type")
	// errNotResponse: a JSON body that is not the request's response.
	errNotResponse = errors.New("mcp: body is not the request's JSON-RPC response")
)

// httpConn is our streamable HTTP client transport, an rpcConn. We do not
// use mcp-go's StreamableHTTP: it adds its headers in a round tripper on
// every redirect hop, so a redirect carried credentials to any origin.
//
//   - The configured headers (bearer_token_env, env_headers: credentials)
//     are set on each request we build, and the client follows no redirect
//     to another origin (origin.CheckRedirect): such a request fails with
//     an error wrapping origin.ErrCrossOrigin and never reaches the other
//     origin.
//   - Every response body is bounded (MaxHTTPBodyBytes), and every request,
//     the session DELETE at close included, is aborted by kill.
//   - Close cancels the requests in flight, then ends a legacy session with
//     DELETE. The protocol version 2026-07-28 has no session.
//   - A server's requests inside an event stream are answered as over stdio:
//     ping, and "method not found" for everything else.
//
// Errors never carry the server URL (it may hold a token in its query) or a
// body.
type httpConn struct {
	url     *url.URL
	hc      *http.Client
	pool    *http.Transport
	headers map[string]string // credentials: never logged
	abort   context.CancelFunc

	// closing ends the requests in flight at Close.
	closing    context.Context
	endFlights context.CancelFunc

	// mu guards the session and protocol version below, and the handler.
	mu       sync.Mutex
	session  string
	version  string
	onNotify func(mcp.JSONRPCNotification)

	// closed is closed when Close (the session DELETE) returned.
	closed    chan struct{}
	closeOnce sync.Once
}

// newHTTPConn prepares a connection to rawURL, sending headers (settings
// bearer_token_env and env_headers, already resolved) with every request.
// It performs no I/O.
func newHTTPConn(rawURL string, headers map[string]string) (*httpConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("mcp: url must be an absolute http or https URL")
	}
	abortCtx, abort := context.WithCancel(context.Background())
	pool := http.DefaultTransport.(*http.Transport).Clone()
	hc := origin.Client(&http.Client{Transport: &boundedRoundTripper{base: pool, abort: abortCtx, max: MaxHTTPBodyBytes}})
	closing, endFlights := context.WithCancel(context.Background())
	return &httpConn{
		url: u, hc: hc, pool: pool, headers: maps.Clone(headers), abort: abort,
		closing: closing, endFlights: endFlights, closed: make(chan struct{}),
	}, nil
}

// SetProtocolVersion sets the Mcp-Protocol-Version of later requests (the
// session sets it as it negotiates).
func (c *httpConn) SetProtocolVersion(version string) {
	c.mu.Lock()
	c.version = version
	c.mu.Unlock()
}

// SetNotificationHandler sets the handler of the server's notifications
// (nil: they are dropped; only tests set one). The handler runs on
// the goroutine of the request whose event stream carried the notification.
func (c *httpConn) SetNotificationHandler(handler func(mcp.JSONRPCNotification)) {
	c.mu.Lock()
	c.onNotify = handler
	c.mu.Unlock()
}

// SendRequest implements rpcConn: it POSTs the request and reads
// its response from a JSON body or an event stream.
func (c *httpConn) SendRequest(ctx context.Context, req rpcRequest) (*rpcResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("mcp: marshal request: %w", err)
	}
	ctx, cancel := c.inFlight(ctx)
	defer cancel()
	resp, err := c.post(ctx, body, req.Header)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// A JSON-RPC error may come with a 4xx; anything else is the status.
		if r, _ := decodeResponse(resp.Body, req.ID); r != nil && r.Error != nil {
			return r, nil
		}
		return nil, fmt.Errorf("%w %d", ErrHTTPStatus, resp.StatusCode)
	}
	if req.Method == string(mcp.MethodInitialize) {
		if id := resp.Header.Get(headerSession); id != "" {
			c.mu.Lock()
			c.session = id
			c.mu.Unlock()
		}
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "application/json":
		r, err := decodeResponse(resp.Body, req.ID)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return r, err
	case "text/event-stream":
		return c.readStream(ctx, resp.Body, req.ID)
	}
	return nil, errContentType
}

// SendNotification implements rpcConn.
func (c *httpConn) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	body, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("mcp: marshal notification: %w", err)
	}
	ctx, cancel := c.inFlight(ctx)
	defer cancel()
	return c.postNoAnswer(ctx, body)
}

// Close cancels the requests in flight and ends a legacy session with
// DELETE, which blocks until the server answers or kill aborts it. Later
// calls return at once.
func (c *httpConn) Close() error {
	c.closeOnce.Do(func() {
		c.endFlights()
		c.mu.Lock()
		session, modern := c.session, mcp.IsModernProtocol(c.version)
		c.mu.Unlock()
		if session != "" && !modern {
			// Bounded by kill (the abort context of every request).
			req, err := c.newRequest(context.Background(), http.MethodDelete, nil, nil)
			if err == nil {
				if resp, err := c.hc.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}
		c.pool.CloseIdleConnections()
		close(c.closed)
	})
	return nil
}

// closeSession is Close for the manager. It blocks until the DELETE is
// answered or kill is called; run it on its own goroutine.
func (c *httpConn) closeSession() { _ = c.Close() }

// kill aborts every request in flight (Close then returns at once). It
// never blocks.
func (c *httpConn) kill() {
	c.abort()
	c.endFlights()
	c.pool.CloseIdleConnections()
}

// inFlight derives the context of one request: it ends with ctx or at Close.
func (c *httpConn) inFlight(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.closing, cancel)
	return ctx, func() { stop(); cancel() }
}

// newRequest builds a request to the server URL with the session, protocol
// version and configured headers. extra (the session's per-request protocol
// headers) goes first, so that it cannot replace a configured header.
func (c *httpConn) newRequest(ctx context.Context, method string, body []byte, extra http.Header) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.url.String(), rd)
	if err != nil {
		return nil, errors.New("mcp: cannot build the HTTP request")
	}
	if extra != nil {
		req.Header = extra.Clone()
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	c.mu.Lock()
	session, version := c.session, c.version
	c.mu.Unlock()
	if session != "" && !mcp.IsModernProtocol(version) {
		req.Header.Set(headerSession, session)
	}
	if version != "" {
		req.Header.Set(headerProtocol, version)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	return req, nil
}

// post sends one JSON-RPC message. Its errors name neither the URL nor a
// redirect target.
func (c *httpConn) post(ctx context.Context, body []byte, extra http.Header) (*http.Response, error) {
	req, err := c.newRequest(ctx, http.MethodPost, body, extra)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, describe(err)
	}
	return resp, nil
}

// postNoAnswer sends a notification or a response to the server, which
// answers 202 (or 200/204) with nothing to read.
func (c *httpConn) postNoAnswer(ctx context.Context, body []byte) error {
	resp, err := c.post(ctx, body, nil)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK, http.StatusAccepted, http.StatusNoContent:
		return nil
	}
	return fmt.Errorf("%w %d", ErrHTTPStatus, resp.StatusCode)
}

// describe turns an HTTP client error into one without the URL: the
// operation and its cause (a refused redirect, a connection failure).
func describe(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if errors.Is(ue.Err, origin.ErrCrossOrigin) {
			return fmt.Errorf("mcp: %w", origin.ErrCrossOrigin)
		}
		return fmt.Errorf("mcp: http %s: %w", strings.ToLower(ue.Op), ue.Err)
	}
	return err
}

// decodeResponse reads a JSON body as the response to the request id: nil
// and the read error (ErrMessageTooLarge for one over MaxHTTPBodyBytes), or
// nil and errNotResponse.
func decodeResponse(body io.Reader, id mcp.RequestId) (*rpcResponse, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	var msg message
	if json.Unmarshal(data, &msg) != nil || msg.Method != "" {
		return nil, errNotResponse
	}
	if r := responseTo(msg, id); r != nil {
		return r, nil
	}
	return nil, errNotResponse
}

// responseTo returns msg as the response to the request id, or nil when it
// answers another request.
func responseTo(msg message, id mcp.RequestId) *rpcResponse {
	var got mcp.RequestId
	if len(msg.ID) == 0 || json.Unmarshal(msg.ID, &got) != nil || got.String() != id.String() {
		return nil
	}
	return &rpcResponse{ID: got, Result: msg.Result, Error: msg.Error}
}

// readStream reads an event stream (text/event-stream) until the response
// to the request id. Notifications go to the handler; the server's requests
// are answered on the way.
func (c *httpConn) readStream(ctx context.Context, body io.Reader, id mcp.RequestId) (*rpcResponse, error) {
	r := bufio.NewReader(body)
	var data []byte
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A field longer than the buffer: gather it whole (the body is
			// bounded by MaxHTTPBodyBytes).
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case errors.Is(err, io.EOF):
				return nil, errStreamEnded
			}
			return nil, err // ErrMessageTooLarge, or the connection broke
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 { // end of an event: dispatch its data
			if resp := c.dispatchEvent(ctx, data, id); resp != nil {
				return resp, nil
			}
			data = data[:0]
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
		}
		// event:, id:, retry: and comments change nothing for us: every
		// event is a JSON-RPC message, and a broken stream is not resumed.
	}
}

// dispatchEvent routes one event's JSON-RPC message (route): the response
// to id is returned; a notification goes to the handler; a server request
// is answered.
func (c *httpConn) dispatchEvent(ctx context.Context, data []byte, id mcp.RequestId) *rpcResponse {
	var resp *rpcResponse
	route(data, func(n mcp.JSONRPCNotification) {
		c.mu.Lock()
		handler := c.onNotify
		c.mu.Unlock()
		if handler != nil {
			handler(n)
		}
	}, func(msg message) {
		_ = c.postNoAnswer(ctx, serverRequestReply(msg))
	}, func(msg message) {
		resp = responseTo(msg, id)
	})
	return resp
}

// boundedRoundTripper cancels each request when abort ends and cuts each
// response body at max bytes with ErrMessageTooLarge. It adds no header:
// credentials are set on the request, where net/http's redirect rules and
// origin.CheckRedirect see them.
type boundedRoundTripper struct {
	base  http.RoundTripper
	abort context.Context
	max   int64
}

func (b *boundedRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	unhook := context.AfterFunc(b.abort, cancel)
	release := func() { unhook(); cancel() }
	resp, err := b.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		release()
		return nil, err
	}
	resp.Body = &boundedBody{body: resp.Body, left: b.max, release: release}
	return resp, nil
}

// boundedBody fails a body longer than its bound. Not for concurrent use
// (like any response body).
type boundedBody struct {
	body    io.ReadCloser
	left    int64
	release func()
	once    sync.Once
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, ErrMessageTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte more tells "exactly max" from "more"
	}
	n, err := b.body.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), ErrMessageTooLarge
	}
	return n, err
}

func (b *boundedBody) Close() error {
	err := b.body.Close()
	b.once.Do(b.release)
	return err
}

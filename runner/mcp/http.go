package mcp

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
)

// MaxHTTPBodyBytes bounds one HTTP response body from a streamable HTTP
// server: one message of at most MaxMessageBytes plus room for the
// notifications an SSE response may carry before it.
const MaxHTTPBodyBytes = 2 * MaxMessageBytes

// httpConn is a streamable HTTP server's mcp-go transport plus what we need
// to bound it: our own connection pool (closed at the end, so no keep-alive
// goroutine outlives the manager) and an abort context that cancels every
// request in flight, including mcp-go's session DELETE at close, which it
// otherwise gives five seconds of its own.
type httpConn struct {
	t     *transport.StreamableHTTP
	pool  *http.Transport
	abort context.CancelFunc

	// closed is closed when the session DELETE (transport Close) returned.
	closed    chan struct{}
	closeOnce sync.Once
}

// newHTTPConn connects to url, sending headers (settings bearer_token_env
// and env_headers, already resolved) with every request.
func newHTTPConn(url string, headers map[string]string, logf func(string, ...any)) (*httpConn, error) {
	abortCtx, abort := context.WithCancel(context.Background())
	pool := http.DefaultTransport.(*http.Transport).Clone()
	// The headers are set on every request by our round tripper, not by
	// mcp-go's WithHTTPHeaders, which leaves them off its session DELETE.
	hc := &http.Client{Transport: &boundedRoundTripper{base: pool, abort: abortCtx, max: MaxHTTPBodyBytes, headers: maps.Clone(headers)}}
	t, err := transport.NewStreamableHTTP(url,
		transport.WithHTTPBasicClient(hc),
		// mcp-go logs through slog.Default, which writes to stderr.
		transport.WithHTTPLogger(slog.New(logfHandler{logf: logf})),
	)
	if err != nil {
		abort()
		return nil, err
	}
	return &httpConn{t: t, pool: pool, abort: abort, closed: make(chan struct{})}, nil
}

// closeSession ends the session (mcp-go sends DELETE) and releases the pool.
// It blocks until the DELETE is answered or abort is called; run it on its
// own goroutine.
func (c *httpConn) closeSession() {
	c.closeOnce.Do(func() {
		_ = c.t.Close()
		c.pool.CloseIdleConnections()
		close(c.closed)
	})
}

// kill aborts every request in flight (closeSession then returns at once).
// It never blocks.
func (c *httpConn) kill() {
	c.abort()
	c.pool.CloseIdleConnections()
}

// boundedRoundTripper cancels each request when abort ends, sets headers
// on each request, and cuts each response body at max bytes with
// ErrMessageTooLarge.
type boundedRoundTripper struct {
	base    http.RoundTripper
	abort   context.Context
	max     int64
	headers map[string]string // credentials: never logged
}

func (b *boundedRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	unhook := context.AfterFunc(b.abort, cancel)
	release := func() { unhook(); cancel() }
	out := req.WithContext(ctx)
	if len(b.headers) > 0 {
		out = req.Clone(ctx) // a RoundTripper must not modify the caller's headers
		for k, v := range b.headers {
			out.Header.Set(k, v)
		}
	}
	resp, err := b.base.RoundTrip(out)
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

// logfHandler sends mcp-go's slog records to logf, never to stderr.
type logfHandler struct{ logf func(string, ...any) }

func (h logfHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h logfHandler) Handle(_ context.Context, r slog.Record) error {
	h.logf("mcp: http transport: %s", r.Message)
	return nil
}
func (h logfHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h logfHandler) WithGroup(string) slog.Handler      { return h }

package provider

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"

	"github.com/magi-code/magi-code/runner/origin"
)

// DefaultHeaderTimeout bounds the wait for response headers of the HTTP
// providers' default client. The streamed body is bounded by the call's ctx
// only: a long answer is not a hung server.
const DefaultHeaderTimeout = 120 * time.Second

// HTTPClient returns a copy of hc, or when hc is nil a client on a clone
// of http.DefaultTransport whose wait for response headers is bounded by
// DefaultHeaderTimeout. Either way the client follows no redirect to
// another origin (origin.CheckRedirect): the SDKs set the API key or OAuth
// token on the request, and Go would forward an x-api-key header, and an
// Authorization header to another port, with the redirected request. It
// performs no I/O.
func HTTPClient(hc *http.Client) *http.Client {
	if hc != nil {
		return origin.Client(hc)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = DefaultHeaderTimeout
	return origin.Client(&http.Client{Transport: tr})
}

// ToolArguments turns the argument text a model streamed for one tool call
// into the JSON a ToolCall carries: {} when it is empty or white space, the
// trimmed text when it is valid JSON, and otherwise the text as a JSON
// string: the tool rejects it, and the replayed history stays valid JSON.
func ToolArguments(args string) json.RawMessage {
	args = strings.TrimSpace(args)
	switch {
	case args == "":
		return json.RawMessage("{}")
	case json.Valid([]byte(args)):
		return json.RawMessage(args)
	}
	raw, _ := json.Marshal(args) // a string: cannot fail
	return raw
}

// HeaderOf returns resp's header, nil for no response.
func HeaderOf(resp *http.Response) http.Header {
	if resp == nil {
		return nil
	}
	return resp.Header
}

// ConnTrace records, through net/http/httptrace, whether a request went
// out on a reused (kept-alive) connection and whether any byte of an
// answer came back: a reused connection that answered nothing was most
// likely closed by the server while idle, and a retry on a fresh
// connection may be sent at once (Error.Stale).
type ConnTrace struct {
	reused, answered atomic.Bool
}

// TraceConn returns ctx tracing the connection of the requests made with
// it, and the trace.
func TraceConn(ctx context.Context) (context.Context, *ConnTrace) {
	ct := &ConnTrace{}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn:              func(info httptrace.GotConnInfo) { ct.reused.Store(info.Reused) },
		GotFirstResponseByte: func() { ct.answered.Store(true) },
	}), ct
}

// Stale reports whether the last connection was a reused one that
// answered nothing.
func (ct *ConnTrace) Stale() bool { return ct.reused.Load() && !ct.answered.Load() }

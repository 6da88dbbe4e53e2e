package provider

import (
	"encoding/json"
	"net/http"
	"strings"
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

package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// An MCP server's url must be an absolute http or https URL.
func TestHTTPURLSchemes(t *testing.T) {
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"https://mcp.example.com/mcp", true},
		{"http://127.0.0.1:8080/mcp", true},
		{"ftp://mcp.example.com/mcp", false},
		{"file:///etc/passwd", false},
		{"http:///mcp", false}, // no host
		{"/mcp", false},
	} {
		c, err := newHTTPConn(tc.url, nil)
		if (err == nil) != tc.ok {
			t.Errorf("newHTTPConn(%q) error = %v; want ok %v", tc.url, err, tc.ok)
		}
		if c != nil {
			c.kill()
		}
	}
}

// sendOne posts one request with id 1 to a server made of h.
func sendOne(t *testing.T, h http.HandlerFunc) (*rpcResponse, error) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := newHTTPConn(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.kill)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	return c.SendRequest(ctx, rpcRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "tools/list"})
}

// A JSON-RPC error may come with a 4xx status: it is the answer. Any other
// body with a status other than 200 is the status.
func TestHTTPErrorStatus(t *testing.T) {
	resp, err := sendOne(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad params"}}`)
	})
	if err != nil || resp == nil || resp.Error == nil || resp.Error.Code != -32602 {
		t.Errorf("400 with a JSON-RPC error: %+v, %v; want the error as the answer", resp, err)
	}
	resp, err = sendOne(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	if !errors.Is(err, ErrHTTPStatus) || resp != nil {
		t.Errorf("500 with a result: %+v, %v; want ErrHTTPStatus", resp, err)
	}
}

// A notification the server does not accept (any status but 200, 202 or
// 204) is an error; one it accepts is not.
func TestHTTPNotificationStatus(t *testing.T) {
	for _, tc := range []struct {
		status int
		fails  bool
	}{{http.StatusAccepted, false}, {http.StatusNoContent, false}, {http.StatusInternalServerError, true}, {http.StatusNotFound, true}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(tc.status) }))
		c, err := newHTTPConn(srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = c.SendNotification(t.Context(), mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/initialized"}})
		if got := errors.Is(err, ErrHTTPStatus); got != tc.fails {
			t.Errorf("notification answered %d: %v; want ErrHTTPStatus %v", tc.status, err, tc.fails)
		}
		c.kill()
		srv.Close()
	}
	// A server that cannot be reached: an error, not a panic.
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	c, err := newHTTPConn(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.kill()
	if err := c.SendNotification(t.Context(), mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "x"}}); err == nil {
		t.Error("a notification to a closed server succeeded")
	}
}

// An event's data lines join with a newline (the event stream format): a
// message split inside a number is two numbers, not valid JSON, and is
// skipped; the next event's response is the answer.
func TestHTTPEventDataJoinsWithNewline(t *testing.T) {
	resp, err := sendOne(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"n\":1\ndata: 2}}\n\n")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"n\":3}}\n\n")
	})
	if err != nil || resp == nil || string(resp.Result) != `{"n":3}` {
		t.Fatalf("SendRequest = %+v, %v; want the second event's result {\"n\":3}", resp, err)
	}
}

// A response body of exactly the bound is read whole; one byte more fails
// with ErrMessageTooLarge. Each read ends within a bound, and Close releases
// the request once however often it is called.
func TestBoundedBody(t *testing.T) {
	const max = 1000
	for _, tc := range []struct {
		n       int
		tooLong bool
	}{{0, false}, {max - 1, false}, {max, false}, {max + 1, true}, {3 * max, true}} {
		released := 0
		body := &boundedBody{body: io.NopCloser(strings.NewReader(strings.Repeat("x", tc.n))), left: max, release: func() { released++ }}
		type result struct {
			b   []byte
			err error
		}
		done := make(chan result, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- result{err: fmt.Errorf("panic: %v", p)}
				}
			}()
			b, err := io.ReadAll(body)
			done <- result{b, err}
		}()
		select {
		case r := <-done:
			if tc.tooLong && (!errors.Is(r.err, ErrMessageTooLarge) || len(r.b) > max) {
				t.Errorf("%d bytes: ReadAll = %d bytes, %v; want at most %d and ErrMessageTooLarge", tc.n, len(r.b), r.err, max)
			}
			if !tc.tooLong && (r.err != nil || len(r.b) != tc.n) {
				t.Errorf("%d bytes: ReadAll = %d bytes, %v; want all of them", tc.n, len(r.b), r.err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%d bytes: reading a body of a %d-byte bound did not end within 10s", tc.n, max)
		}
		body.Close()
		body.Close()
		if released != 1 {
			t.Errorf("%d bytes: released %d times; want 1", tc.n, released)
		}
	}
}

// A read whose buffer is exactly what the bound has left stays inside that
// buffer: it neither panics (io.ReadAll's buffer has no room past its
// length) nor returns more than was asked. The bound still tells a body of
// exactly max from a longer one on the next read.
func TestBoundedBodyReadOfExactlyWhatIsLeft(t *testing.T) {
	const max = 8
	for _, n := range []int{max, max + 1} {
		body := &boundedBody{body: io.NopCloser(strings.NewReader(strings.Repeat("x", n))), left: max, release: func() {}}
		read := func(p []byte) (got int, err error) {
			defer func() {
				if v := recover(); v != nil {
					t.Fatalf("%d-byte body: Read of %d bytes with %d left panicked: %v", n, len(p), body.left, v)
				}
			}()
			return body.Read(p)
		}
		p := make([]byte, max) // len == cap == what is left
		got, err := read(p)
		if got != max || err != nil || string(p) != strings.Repeat("x", max) {
			t.Fatalf("%d-byte body: first Read = %d, %v; want all %d bytes of the bound and no error", n, got, err, max)
		}
		got, err = read(make([]byte, max))
		if n == max && (got != 0 || err != io.EOF) {
			t.Errorf("%d-byte body: second Read = %d, %v; want 0, EOF", n, got, err)
		}
		if n > max && (got != 0 || !errors.Is(err, ErrMessageTooLarge)) {
			t.Errorf("%d-byte body: second Read = %d, %v; want 0, ErrMessageTooLarge", n, got, err)
		}
	}
}

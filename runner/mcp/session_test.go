package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// sent is one message a session sent, as the server would decode it.
type sent struct {
	method string
	params map[string]json.RawMessage
	header map[string]string
	ctx    context.Context
	ended  bool // ctx had ended when it was sent
}

// fakeConn is an rpcConn whose server is a function: no pipes, no clock.
type fakeConn struct {
	mu     sync.Mutex
	sent   []sent
	notes  chan sent
	answer func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error)
}

func newFakeConn(answer func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error)) *fakeConn {
	return &fakeConn{notes: make(chan sent, 16), answer: answer}
}

func decodeSent(ctx context.Context, method string, params any, h map[string][]string) sent {
	s := sent{method: method, ctx: ctx, ended: ctx.Err() != nil, header: map[string]string{}}
	if params != nil {
		b, _ := json.Marshal(params)
		_ = json.Unmarshal(b, &s.params)
	}
	for k, v := range h {
		s.header[k] = strings.Join(v, ",")
	}
	return s
}

func (f *fakeConn) SendRequest(ctx context.Context, req rpcRequest) (*rpcResponse, error) {
	s := decodeSent(ctx, req.Method, req.Params, req.Header)
	f.mu.Lock()
	f.sent = append(f.sent, s)
	f.mu.Unlock()
	result, rpcErr, err := f.answer(s)
	if err != nil {
		return nil, err
	}
	return &rpcResponse{ID: req.ID, Result: result, Error: rpcErr}, nil
}

func (f *fakeConn) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	f.notes <- decodeSent(ctx, n.Method, n.Params, nil)
	return nil
}

func (f *fakeConn) methods() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, s := range f.sent {
		out = append(out, s.method)
	}
	return out
}

func (f *fakeConn) last() sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent[len(f.sent)-1]
}

var notFound = &mcp.JSONRPCErrorDetails{Code: mcp.METHOD_NOT_FOUND, Message: "method not found"}

func legacyInit(version string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"s","version":"1"}}`, version))
}

// legacyServer refuses server/discover and answers initialize with version.
func legacyServer(version string, more func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error)) *fakeConn {
	return newFakeConn(func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
		switch s.method {
		case "server/discover":
			return nil, notFound, nil
		case "initialize":
			return legacyInit(version), nil, nil
		}
		return more(s)
	})
}

// takeInitialized takes notifications/initialized, which the handshake sends
// before open returns.
func takeInitialized(t *testing.T, fc *fakeConn) {
	t.Helper()
	select {
	case n := <-fc.notes:
		if n.method != "notifications/initialized" {
			t.Fatalf("notification %q; want notifications/initialized", n.method)
		}
	default:
		t.Fatal("open returned without sending notifications/initialized")
	}
}

func metaOf(t *testing.T, s sent) map[string]json.RawMessage {
	t.Helper()
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(s.params["_meta"], &meta); err != nil {
		t.Fatalf("%s sent without _meta: %v", s.method, err)
	}
	return meta
}

// A server of the stateless protocol answers server/discover: no
// initialize, and every request carries the version, identity and (empty)
// capabilities in _meta.
func TestOpenModern(t *testing.T) {
	fc := newFakeConn(func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
		switch s.method {
		case "server/discover":
			return json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}`), nil, nil
		case "tools/list":
			return json.RawMessage(`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`), nil, nil
		}
		return nil, notFound, nil
	})
	s := newSession(fc, "test", t.Logf)
	if err := s.open(t.Context()); err != nil {
		t.Fatalf("open: %v", err)
	}
	if s.version != mcp.LATEST_PROTOCOL_VERSION {
		t.Errorf("version = %q; want %q", s.version, mcp.LATEST_PROTOCOL_VERSION)
	}
	if _, err := s.listTools(t.Context()); err != nil {
		t.Fatalf("listTools: %v", err)
	}
	if got := fc.methods(); !slices.Equal(got, []string{"server/discover", "tools/list"}) {
		t.Errorf("sent %q; want discover then tools/list", got)
	}
	meta := metaOf(t, fc.last())
	if string(meta[mcp.MetaKeyProtocolVersion]) != `"2026-07-28"` || !strings.Contains(string(meta[mcp.MetaKeyClientInfo]), `"magi-code"`) {
		t.Errorf("tools/list _meta = %s", fc.last().params["_meta"])
	}
	if _, ok := meta[mcp.MetaKeyClientCapabilities]; !ok {
		t.Errorf("tools/list _meta has no client capabilities")
	}
	if len(fc.notes) != 0 {
		t.Errorf("a notification was sent on a modern connection")
	}
}

// A server that refuses server/discover gets the initialize handshake at
// the newest legacy version, then notifications/initialized; later
// requests carry no _meta.
func TestOpenLegacy(t *testing.T) {
	fc := legacyServer("2025-06-18", func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
		return json.RawMessage(`{"tools":[]}`), nil, nil
	})
	s := newSession(fc, "test", t.Logf)
	if err := s.open(t.Context()); err != nil {
		t.Fatalf("open: %v", err)
	}
	if s.version != "2025-06-18" {
		t.Errorf("version = %q; want the server's 2025-06-18", s.version)
	}
	init := fc.sent[1]
	if init.method != "initialize" || string(init.params["protocolVersion"]) != `"`+mcp.LATEST_LEGACY_PROTOCOL_VERSION+`"` {
		t.Errorf("second request %s %s; want initialize at %s", init.method, init.params["protocolVersion"], mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	}
	takeInitialized(t, fc)
	if _, err := s.listTools(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, ok := fc.last().params["_meta"]; ok {
		t.Errorf("a legacy request carried _meta")
	}
}

// A handshake answer naming a version we do not know (or a stateless one,
// which initialize cannot negotiate) fails the server, and nothing more is
// sent.
func TestOpenLegacyBadVersion(t *testing.T) {
	for _, v := range []string{"1999-01-01", "", "2026-07-28", strings.Repeat("v", 500)} {
		fc := legacyServer(v, nil)
		s := newSession(fc, "test", t.Logf)
		err := s.open(t.Context())
		if err == nil || !strings.Contains(err.Error(), "unsupported protocol version") {
			t.Errorf("version %.20q: open = %v; want unsupported protocol version", v, err)
		}
		if err != nil && len(err.Error()) > 100 {
			t.Errorf("version %.20q: error of %d bytes; want the version cut", v, len(err.Error()))
		}
		if len(fc.notes) != 0 {
			t.Errorf("version %.20q: notifications/initialized sent after a refused version", v)
		}
	}
}

// A server that ignores server/discover: the probe ends at its own
// deadline, even under a ctx without one (the fake reports that deadline
// instead of waiting for it), and the handshake follows.
func TestOpenDiscoverIgnored(t *testing.T) {
	var probeBounded bool
	fc := newFakeConn(func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
		switch s.method {
		case "server/discover":
			d, ok := s.ctx.Deadline()
			probeBounded = ok && time.Until(d) <= discoverTimeout
			return nil, nil, context.DeadlineExceeded
		case "initialize":
			return legacyInit("2025-11-25"), nil, nil
		}
		return nil, notFound, nil
	})
	s := newSession(fc, "test", t.Logf)
	if err := s.open(t.Context()); err != nil {
		t.Fatalf("open: %v", err)
	}
	if !probeBounded {
		t.Errorf("server/discover was sent without a deadline of its own (at most %v)", discoverTimeout)
	}
	if got := fc.methods(); !slices.Equal(got, []string{"server/discover", "initialize"}) {
		t.Errorf("sent %q", got)
	}
}

// A cancelled startup stops at the probe: no handshake follows.
func TestOpenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	fc := newFakeConn(func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
		cancel()
		return nil, nil, context.Canceled
	})
	if err := newSession(fc, "test", t.Logf).open(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("open = %v; want context.Canceled", err)
	}
	if got := fc.methods(); !slices.Equal(got, []string{"server/discover"}) {
		t.Errorf("sent %q; want only the probe", got)
	}
}

// A stateless server that refuses our version but names another stateless
// one it shares with us is asked again at that version.
func TestOpenRenegotiates(t *testing.T) {
	const future = "2099-01-01"
	saved := mcp.ValidProtocolVersions
	mcp.ValidProtocolVersions = append([]string{future}, saved...)
	t.Cleanup(func() { mcp.ValidProtocolVersions = saved })
	fc := newFakeConn(func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
		var meta map[string]string
		_ = json.Unmarshal(s.params["_meta"], &meta)
		if s.method == "server/discover" && meta[mcp.MetaKeyProtocolVersion] == future {
			return json.RawMessage(`{"supportedVersions":["` + future + `"],"capabilities":{}}`), nil, nil
		}
		return nil, &mcp.JSONRPCErrorDetails{Code: mcp.UNSUPPORTED_PROTOCOL_VERSION, Message: "unsupported",
			Data: map[string]any{"supported": []string{future, "2025-11-25"}}}, nil
	})
	s := newSession(fc, "test", t.Logf)
	if err := s.open(t.Context()); err != nil {
		t.Fatalf("open: %v", err)
	}
	if s.version != future {
		t.Errorf("version = %q; want %q", s.version, future)
	}
	if got := fc.methods(); !slices.Equal(got, []string{"server/discover", "server/discover"}) {
		t.Errorf("sent %q", got)
	}
}

// tools/list follows cursors to the end, in order; a repeated cursor or
// endless pages fail instead of looping.
func TestListToolsPages(t *testing.T) {
	pages := func(next func(cursor string) string) *fakeConn {
		return legacyServer("2025-11-25", func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
			var cursor string
			_ = json.Unmarshal(s.params["cursor"], &cursor)
			n := next(cursor)
			return json.RawMessage(fmt.Sprintf(`{"tools":[{"name":"t%s","inputSchema":{"type":"object"}}],"nextCursor":%q}`, cursor, n)), nil, nil
		})
	}
	open := func(fc *fakeConn) *session {
		s := newSession(fc, "test", t.Logf)
		if err := s.open(t.Context()); err != nil {
			t.Fatal(err)
		}
		return s
	}
	fc := pages(func(c string) string { return map[string]string{"": "p2", "p2": "p3"}[c] })
	tools, err := open(fc).listTools(t.Context())
	if err != nil {
		t.Fatalf("listTools: %v", err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"t", "tp2", "tp3"}) {
		t.Errorf("tools %q; want t, tp2, tp3", names)
	}

	loop := pages(func(c string) string { return map[string]string{"": "a", "a": "b", "b": "a"}[c] })
	if _, err := open(loop).listTools(t.Context()); !errors.Is(err, errCursorRepeat) {
		t.Errorf("listTools with a cursor loop = %v; want errCursorRepeat", err)
	}

	n := 0
	endless := pages(func(string) string { n++; return fmt.Sprint("c", n) })
	if _, err := open(endless).listTools(t.Context()); !errors.Is(err, errToolPages) {
		t.Errorf("listTools with endless pages = %v; want errToolPages", err)
	}
	if n != maxToolPages {
		t.Errorf("endless pages: %d pages asked for; want %d", n, maxToolPages)
	}
}

// A tools/call result that asks for input fails the call (we can give
// none); one that only asks to retry is retried with its state, a bounded
// number of times.
func TestCallToolInputRequired(t *testing.T) {
	const inputRequired = `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"?"}}},"requestState":"s"}`
	const retry = `{"resultType":"input_required","requestState":"again"}`
	for _, tc := range []struct {
		name    string
		answers []string
		want    error
		calls   int
	}{
		{"input", []string{inputRequired}, errNeedsInput, 1},
		{"retry then result", []string{retry, `{"content":[{"type":"text","text":"done"}]}`}, nil, 2},
		{"retry for ever", []string{retry, retry, retry, retry}, errRetryLater, maxCallAttempts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			var states []string
			fc := legacyServer("2025-11-25", func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
				var st string
				_ = json.Unmarshal(s.params["requestState"], &st)
				states = append(states, st)
				calls++
				return json.RawMessage(tc.answers[calls-1]), nil, nil
			})
			s := newSession(fc, "test", t.Logf)
			if err := s.open(t.Context()); err != nil {
				t.Fatal(err)
			}
			res, err := s.callTool(t.Context(), "x", json.RawMessage(`{}`))
			if !errors.Is(err, tc.want) {
				t.Fatalf("callTool = %v; want %v", err, tc.want)
			}
			if calls != tc.calls {
				t.Errorf("%d calls; want %d", calls, tc.calls)
			}
			if tc.want == nil && renderResult(res) != "done" {
				t.Errorf("result %q; want done", renderResult(res))
			}
			if calls > 1 && states[1] != "again" {
				t.Errorf("retry sent requestState %q; want the server's", states[1])
			}
		})
	}
}

// The server's JSON-RPC error is its answer (the model sees it); the
// connection's failure is a *connError.
func TestCallErrorKinds(t *testing.T) {
	broken := errors.New("pipe broke")
	fc := legacyServer("2025-11-25", func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
		var name string
		_ = json.Unmarshal(s.params["name"], &name)
		switch name {
		case "rpc":
			return nil, &mcp.JSONRPCErrorDetails{Code: mcp.INVALID_PARAMS, Message: "bad n"}, nil
		case "garbage":
			return json.RawMessage(`[1,2]`), nil, nil
		}
		return nil, nil, broken
	})
	s := newSession(fc, "test", t.Logf)
	if err := s.open(t.Context()); err != nil {
		t.Fatal(err)
	}
	var cerr *connError
	_, err := s.callTool(t.Context(), "rpc", nil)
	if err == nil || errors.As(err, &cerr) || !strings.Contains(err.Error(), "bad n") {
		t.Errorf("JSON-RPC error: %v; want the server's answer, not a connection error", err)
	}
	if _, err := s.callTool(t.Context(), "garbage", nil); err == nil || errors.As(err, &cerr) {
		t.Errorf("undecodable result: %v; want a non-connection error", err)
	}
	if _, err := s.callTool(t.Context(), "conn", nil); !errors.As(err, &cerr) || !errors.Is(err, broken) {
		t.Errorf("transport failure: %v; want a *connError wrapping it", err)
	}
}

// A request whose ctx ends is cancelled with notifications/cancelled naming
// its id, except on a stateless HTTP connection, where ending the request's
// stream is the cancellation.
func TestCancelledNotice(t *testing.T) {
	for _, tc := range []struct {
		name         string
		http, modern bool
		want         bool
	}{
		{"stdio legacy", false, false, true},
		{"stdio stateless", false, true, true},
		{"http legacy", true, false, true},
		{"http stateless", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			fc := newFakeConn(func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
				switch {
				case s.method == "server/discover" && tc.modern:
					return json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":{}}`), nil, nil
				case s.method == "server/discover":
					return nil, notFound, nil
				case s.method == "initialize":
					return legacyInit("2025-11-25"), nil, nil
				}
				cancel()
				return nil, nil, context.Canceled
			})
			s := newSession(fc, "test", t.Logf)
			if tc.http {
				s.setVersion = func(string) {}
			}
			if err := s.open(t.Context()); err != nil {
				t.Fatal(err)
			}
			if !tc.modern {
				takeInitialized(t, fc)
			}
			if _, err := s.callTool(ctx, "slow", nil); !errors.Is(err, context.Canceled) {
				t.Fatalf("callTool = %v; want context.Canceled", err)
			}
			wantID := "3" // discover, initialize, call
			if tc.modern {
				wantID = "2"
			}
			if !tc.want {
				select {
				case n := <-fc.notes:
					t.Errorf("%s sent; want nothing", n.method)
				case <-time.After(50 * time.Millisecond):
				}
				return
			}
			select {
			case n := <-fc.notes:
				if n.method != "notifications/cancelled" || string(n.params["requestId"]) != wantID {
					t.Errorf("sent %s %s; want notifications/cancelled for request %s", n.method, n.params["requestId"], wantID)
				}
				if n.ended {
					t.Errorf("the notice was sent under the ended ctx")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/cancelled within 10 s")
			}
		})
	}
}

// On a stateless HTTP connection each request names its method (and tool)
// in headers, and a listed tool's x-mcp-header arguments are mirrored.
func TestModernHTTPHeaders(t *testing.T) {
	fc := newFakeConn(func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
		switch s.method {
		case "server/discover":
			return json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":{}}`), nil, nil
		case "tools/list":
			return json.RawMessage(`{"tools":[
				{"name":"route","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}},
				{"name":"bad","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Bad Header"}}}}]}`), nil, nil
		}
		return json.RawMessage(`{"content":[]}`), nil, nil
	})
	var versions []string
	s := &session{conn: fc, setVersion: func(v string) { versions = append(versions, v) }, logf: t.Logf}
	if err := s.open(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(versions, []string{"2026-07-28"}) {
		t.Errorf("versions set on the connection %q", versions)
	}
	tools, err := s.listTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 1 || tools[0].Name != "route" {
		t.Errorf("tools %v; want only route (bad's header annotation is invalid)", tools)
	}
	if _, err := s.callTool(t.Context(), "route", json.RawMessage(`{"region":"eu"}`)); err != nil {
		t.Fatal(err)
	}
	h := fc.last().header
	if h[mcp.HeaderMethod] != "tools/call" || h[mcp.HeaderName] != "route" {
		t.Errorf("headers %v; want Mcp-Method tools/call and Mcp-Name route", h)
	}
	if h["Mcp-Param-Region"] != "eu" {
		t.Errorf("headers %v; want Mcp-Param-Region: eu", h)
	}
}

// A lenient server that answers server/discover (any method) with an empty
// result is not taken for a stateless one: the handshake follows.
func TestOpenDiscoverAnswerWithoutOurVersion(t *testing.T) {
	for _, answer := range []string{`{}`, `null`, `{"supportedVersions":["2025-11-25"]}`} {
		fc := newFakeConn(func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
			if s.method == "initialize" {
				return legacyInit("2025-11-25"), nil, nil
			}
			return json.RawMessage(answer), nil, nil
		})
		s := newSession(fc, "test", t.Logf)
		if err := s.open(t.Context()); err != nil {
			t.Fatalf("discover %s: open: %v", answer, err)
		}
		if s.version != "2025-11-25" || !slices.Equal(fc.methods(), []string{"server/discover", "initialize"}) {
			t.Errorf("discover %s: version %q after %q; want the handshake's", answer, s.version, fc.methods())
		}
	}
}

// A server's error text reaches the model and the log cut and without
// control characters; its type survives for errors.As.
func TestServerErrorBounded(t *testing.T) {
	long := "line one\nline two\x1b[31m" + strings.Repeat("é", 2000)
	fc := legacyServer("2025-11-25", func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
		return nil, &mcp.JSONRPCErrorDetails{Code: mcp.INVALID_PARAMS, Message: long}, nil
	})
	s := newSession(fc, "test", t.Logf)
	if err := s.open(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, err := s.callTool(t.Context(), "x", nil)
	if !errors.Is(err, mcp.ErrInvalidParams) {
		t.Fatalf("callTool = %v; want it to wrap mcp.ErrInvalidParams", err)
	}
	text := err.Error()
	if len(text) > maxServerText+len("…[cut]") || !strings.HasSuffix(text, "…[cut]") {
		t.Errorf("error text %d bytes, ends %q; want at most %d and the cut marked", len(text), text[max(0, len(text)-12):], maxServerText)
	}
	if strings.ContainsAny(text, "\n\x1b") || !utf8.ValidString(text) || !strings.Contains(text, "line one line two") {
		t.Errorf("error text %.60q; want valid UTF-8 without control characters", text)
	}
}

// bigPage is a tools/list page of about 3 MiB, the same size for every n
// below 10.
func bigPage(n int) string {
	return fmt.Sprintf(`{"tools":[{"name":"t%d","description":"%s","inputSchema":{"type":"object"}}],"nextCursor":"c%d"}`,
		n%10, strings.Repeat("d", 3<<20), n%10)
}

// tools/list bounds: tools in all, bytes in all, cursor length.
func TestListToolsBounds(t *testing.T) {
	tool := func(i int) string { return fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i) }
	// fourPages lists maxTools tools, and extra more, in four pages.
	fourPages := func(extra int) func(n int) string {
		return func(n int) string {
			var ts []string
			for i := range maxTools/4 + extra*(n/3) {
				ts = append(ts, tool(n*1000+i))
			}
			next := ""
			if n < 3 {
				next = fmt.Sprint("c", n)
			}
			return fmt.Sprintf(`{"tools":[%s],"nextCursor":%q}`, strings.Join(ts, ","), next)
		}
	}
	for _, tc := range []struct {
		name string
		page func(n int) string // the n-th page (0-based)
		want error
	}{
		{"too many tools", func(n int) string {
			var ts []string
			for i := range 300 {
				ts = append(ts, tool(n*300+i))
			}
			return fmt.Sprintf(`{"tools":[%s],"nextCursor":"c%d"}`, strings.Join(ts, ","), n)
		}, errTooManyTools},
		{"exactly the tool bound", fourPages(0), nil},
		{"one over the tool bound", fourPages(1), errTooManyTools},
		{"too many bytes", bigPage, errTooManyTools},
		{"long cursor", func(n int) string {
			return fmt.Sprintf(`{"tools":[],"nextCursor":%q}`, strings.Repeat("c", maxCursorBytes+1))
		}, errCursorLong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			fc := legacyServer("2025-11-25", func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
				n++
				return json.RawMessage(tc.page(n - 1)), nil, nil
			})
			s := newSession(fc, "test", t.Logf)
			if err := s.open(t.Context()); err != nil {
				t.Fatal(err)
			}
			tools, err := s.listTools(t.Context())
			if !errors.Is(err, tc.want) {
				t.Fatalf("listTools = %d tools, %v; want %v", len(tools), err, tc.want)
			}
			if tc.want == nil && len(tools) != maxTools {
				t.Errorf("%d tools; want %d", len(tools), maxTools)
			}
			if tc.name == "too many bytes" {
				// Refused at the first page that takes the total past the bound.
				if want := maxToolListBytes/len(bigPage(0)) + 1; n != want {
					t.Errorf("refused after %d pages; want %d", n, want)
				}
			}
		})
	}
}

// pageOfSize is a tools/list page of exactly size bytes (a description pads
// it), with one tool and the cursor next.
func pageOfSize(t *testing.T, n, size int, next string) string {
	t.Helper()
	page := func(pad int) string {
		return fmt.Sprintf(`{"tools":[{"name":"t%d","description":"%s","inputSchema":{"type":"object"}}],"nextCursor":%q}`,
			n, strings.Repeat("d", pad), next)
	}
	pad := size - len(page(0))
	if pad < 0 {
		t.Fatalf("a page of %d bytes cannot hold a tool", size)
	}
	return page(pad)
}

// The byte bound counts the results exactly: pages that add up to it pass,
// one byte more fails.
func TestListToolsByteBoundExactly(t *testing.T) {
	for _, over := range []int{0, 1} {
		quarter := maxToolListBytes / 4
		fc := legacyServer("2025-11-25", func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
			var cursor string
			_ = json.Unmarshal(s.params["cursor"], &cursor)
			switch cursor {
			case "":
				return json.RawMessage(pageOfSize(t, 0, quarter, "c1")), nil, nil
			case "c1":
				return json.RawMessage(pageOfSize(t, 1, quarter, "c2")), nil, nil
			case "c2":
				return json.RawMessage(pageOfSize(t, 2, quarter, "c3")), nil, nil
			}
			return json.RawMessage(pageOfSize(t, 3, maxToolListBytes-3*quarter+over, "")), nil, nil
		})
		s := newSession(fc, "test", t.Logf)
		if err := s.open(t.Context()); err != nil {
			t.Fatal(err)
		}
		tools, err := s.listTools(t.Context())
		switch {
		case over == 0 && (err != nil || len(tools) != 4):
			t.Errorf("exactly %d bytes: %d tools, %v; want 4 tools", maxToolListBytes, len(tools), err)
		case over == 1 && !errors.Is(err, errTooManyTools):
			t.Errorf("%d bytes: %v; want errTooManyTools", maxToolListBytes+1, err)
		}
	}
}

// A server without the tools capability (in the handshake's answer or
// server/discover's) that refuses tools/list has no tools; one that
// declared tools and refuses it fails.
func TestListToolsCapability(t *testing.T) {
	for _, modern := range []bool{false, true} {
		for _, declares := range []bool{false, true} {
			caps := `{}`
			if declares {
				caps = `{"tools":{}}`
			}
			fc := newFakeConn(func(s sent) (json.RawMessage, *mcp.JSONRPCErrorDetails, error) {
				switch {
				case s.method == "server/discover" && modern:
					return json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":` + caps + `}`), nil, nil
				case s.method == "initialize":
					return json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"serverInfo":{"name":"s","version":"1"}}`), nil, nil
				}
				return nil, notFound, nil
			})
			s := newSession(fc, "test", t.Logf)
			if err := s.open(t.Context()); err != nil {
				t.Fatal(err)
			}
			tools, err := s.listTools(t.Context())
			if declares == (err == nil) || len(tools) != 0 {
				t.Errorf("stateless %v, tools capability %v: listTools = %v, %v; want an error only when declared", modern, declares, tools, err)
			}
		}
	}
}

// cleanText keeps text of exactly max bytes whole and unmarked.
func TestCleanTextAtTheBound(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"abcd", 4, "abcd"},
		{"abcde", 4, "abcd…[cut]"},
		{"ab\tc", 4, "ab c"},
		{"aé", 2, "a…[cut]"}, // never half a rune
		{"a\xffb", 8, "a\uFFFDb"},
	} {
		if got := cleanText(tc.in, tc.max); got != tc.want {
			t.Errorf("cleanText(%q, %d) = %q; want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

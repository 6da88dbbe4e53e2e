package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/magi-code/magi-code/runner/origin"
)

const (
	redirectToken = "Bearer tok-REDIRECT-0123456789"
	redirectKey   = "key-REDIRECT-0123456789"
)

// thief is a working MCP server on another origin that records every
// request and every credential it receives.
type thief struct {
	srv         *httptest.Server
	requests    atomic.Int32
	credentials atomic.Int32
}

func newThief(t *testing.T) *thief {
	inner, _ := httpTestServer(t, nil, true, false)
	th := &thief{}
	th.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		th.requests.Add(1)
		if r.Header.Get("Authorization") != "" || r.Header.Get("X-Key") != "" {
			th.credentials.Add(1)
		}
		proxyTo(inner.URL, w, r)
	}))
	t.Cleanup(th.srv.Close)
	return th
}

func proxyTo(target string, w http.ResponseWriter, r *http.Request) {
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, target, r.Body)
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// TestHTTPRefusesCrossOriginRedirect: an MCP server whose answers redirect
// (307/308) to another origin, another port or the same port under another
// host name (localhost against 127.0.0.1), fails: at startup the server
// fails to start (the integrator reports mcp_unavailable), and after
// startup the tool call fails. The other origin, a working MCP server,
// receives no request, so neither the bearer token nor the env header.
func TestHTTPRefusesCrossOriginRedirect(t *testing.T) {
	checkLeaks(t)
	th := newThief(t)
	thiefURL, _ := url.Parse(th.srv.URL)
	headers := map[string]string{"Authorization": redirectToken, "X-Key": redirectKey}
	for _, tc := range []struct {
		name, target string
		status       int
	}{
		{"another port", th.srv.URL, http.StatusTemporaryRedirect},
		{"another host name", "http://localhost:" + thiefURL.Port(), http.StatusPermanentRedirect},
	} {
		t.Run(tc.name+" at startup", func(t *testing.T) {
			home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, tc.target+"/mcp", tc.status)
			}))
			defer home.Close()
			var logs strings.Builder
			var mu sync.Mutex
			logf := func(f string, a ...any) { mu.Lock(); fmt.Fprintf(&logs, f+"\n", a...); mu.Unlock() }
			m, err := Start(context.Background(), []ServerDef{{Name: "web", URL: home.URL + "/mcp", Headers: headers}}, logf)
			if err == nil {
				closeManager(t, m)
				t.Fatal("Start through a cross-origin redirect succeeded")
			}
			var serr *StartError
			if !errors.As(err, &serr) || !errors.Is(err, origin.ErrCrossOrigin) {
				t.Errorf("Start err = %v; want a *StartError wrapping origin.ErrCrossOrigin", err)
			}
			mu.Lock()
			log := logs.String()
			mu.Unlock()
			if !strings.Contains(log, "redirect to another origin refused") || strings.Contains(log, thiefURL.Port()) ||
				strings.Contains(log, "tok-REDIRECT") || strings.Contains(log, "key-REDIRECT") {
				t.Errorf("log = %q; want the refused redirect named, without its target or a credential", log)
			}
		})
		t.Run(tc.name+" after startup", func(t *testing.T) {
			inner, _ := httpTestServer(t, nil, true, false)
			var redirecting atomic.Bool
			home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if redirecting.Load() && r.Method == http.MethodPost {
					http.Redirect(w, r, tc.target+"/mcp", tc.status)
					return
				}
				proxyTo(inner.URL, w, r)
			}))
			defer home.Close()
			m, err := Start(context.Background(), []ServerDef{{Name: "web", URL: home.URL, Headers: headers}}, t.Logf)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			redirecting.Store(true)
			_, _, err = m.Call(context.Background(), "mcp__web__echo", json.RawMessage(`{"text":"x"}`), 100)
			if !errors.Is(err, origin.ErrCrossOrigin) {
				t.Errorf("Call err = %v; want origin.ErrCrossOrigin", err)
			}
			closeManager(t, m)
		})
	}
	if n, c := th.requests.Load(), th.credentials.Load(); n != 0 || c != 0 {
		t.Errorf("the other origin received %d requests, %d with credentials", n, c)
	}
}

// TestHTTPSameOriginRedirect: a redirect within the server's origin is
// followed with the credentials (it reaches the server they were
// configured for).
func TestHTTPSameOriginRedirect(t *testing.T) {
	checkLeaks(t)
	inner, _ := httpTestServer(t, nil, true, false)
	var authorized atomic.Int32
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
			return
		}
		if r.Header.Get("Authorization") == redirectToken {
			authorized.Add(1)
		}
		proxyTo(inner.URL, w, r)
	}))
	defer home.Close()
	m, err := Start(context.Background(), []ServerDef{{Name: "web", URL: home.URL + "/old", Headers: map[string]string{"Authorization": redirectToken}}}, t.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	closeManager(t, m)
	if authorized.Load() == 0 {
		t.Error("the redirected requests lost their credentials")
	}
}

// TestHTTPEventStream: an SSE answer that carries a notification and a
// server request before the response: the notification reaches the
// handler, ping is answered (with the credentials, on the same origin), and
// the response is the request's.
func TestHTTPEventStream(t *testing.T) {
	checkLeaks(t)
	var pingReply atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"result"`) {
			if r.Header.Get("X-Key") == redirectKey {
				pingReply.Store(string(body))
			}
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": comment\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"test/note\"}\n\n")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}\n\n")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{\"other\":true}}\n\n")
		io.WriteString(w, "id: 7\ndata: {\"jsonrpc\":\"2.0\",\n")
		io.WriteString(w, "data:  \"id\":1,\"result\":{\"ok\":true}}\r\n\r\n")
	}))
	defer srv.Close()
	c, err := newHTTPConn(srv.URL, map[string]string{"X-Key": redirectKey})
	if err != nil {
		t.Fatal(err)
	}
	var notes atomic.Int32
	c.SetNotificationHandler(func(mcp.JSONRPCNotification) { notes.Add(1) })
	resp, err := c.SendRequest(context.Background(), rpcRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "tools/list"})
	if err != nil || resp == nil || string(resp.Result) != `{"ok":true}` {
		t.Fatalf("SendRequest = %+v, %v; want the response to id 1", resp, err)
	}
	if notes.Load() != 1 {
		t.Errorf("notifications handled = %d; want 1", notes.Load())
	}
	if got, _ := pingReply.Load().(string); !strings.Contains(got, `"id":"s1"`) {
		t.Errorf("ping reply = %q; want a result for s1 with the headers", got)
	}
	c.kill()
	c.closeSession()
}

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"
)

// wait blocks until every goroutine of every server has ended.
func (m *Manager) wait() { m.wg.Wait() }

func TestMain(m *testing.M) {
	if mode := os.Getenv(modeEnv); mode != "" {
		runTestServer(mode)
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// testDef is a stdio server of the test binary in the given mode; its
// marker file (see markerEnv) is returned too.
func testDef(t *testing.T, name, mode string) (ServerDef, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "marker")
	return ServerDef{
		Name:    name,
		Command: exe,
		Env:     map[string]string{modeEnv: mode, markerEnv: marker},
	}, marker
}

// readMarker waits until a server wrote its marker and returns its pids.
func readMarker(t *testing.T, path string) (pid, child int) {
	t.Helper()
	for {
		data, err := os.ReadFile(path)
		if err == nil {
			if _, err := fmt.Sscanf(string(data), "%d %d", &pid, &child); err != nil {
				t.Fatalf("marker %q: %v", data, err)
			}
			return pid, child
		}
		time.Sleep(5 * time.Millisecond) // polling a file the child writes; not a timing assertion
	}
}

// processGone reports whether pid no longer runs: no /proc entry, or a
// zombie (PID 1 here may never reap reparented grandchildren).
func processGone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// requireGone fails unless every pid is gone. SIGKILL lands
// asynchronously, so it waits for the kernel, bounded by the test timeout.
func requireGone(t *testing.T, pids ...int) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Log("no /proc: process checks skipped")
		return
	}
	for _, pid := range pids {
		if pid <= 0 {
			continue
		}
		deadline := time.Now().Add(testBound)
		for !processGone(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still runs %v after its server was ended: its process group was not killed", pid, testBound)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// testBound bounds each wait of these tests, well under the package
// timeout; a wait past it fails the test saying what did not happen.
const testBound = 30 * time.Second

// waitManager waits for m's goroutines (m.wait), at most testBound.
func waitManager(t *testing.T, m *Manager) {
	t.Helper()
	done := make(chan struct{})
	go func() { m.wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(testBound):
		t.Fatalf("the manager's goroutines did not end within %v of Close (a server's pipes still open?)", testBound)
	}
}

func closeManager(t *testing.T, m *Manager) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), CleanupWait)
	defer cancel()
	if err := m.Close(ctx); err != nil {
		t.Errorf("Close = %v; want nil", err)
	}
	waitManager(t, m)
}

func TestGoodServer(t *testing.T) {
	checkLeaks(t)
	def, marker := testDef(t, "good", "good")
	m, err := Start(context.Background(), []ServerDef{def}, t.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	pid, _ := readMarker(t, marker)
	defer requireGone(t, pid)
	defer closeManager(t, m)

	tools := map[string]Tool{}
	for _, tool := range m.Tools() {
		tools[tool.FullName] = tool
	}
	for _, want := range []struct {
		full, name string
		readOnly   bool
	}{
		{"mcp__good__echo", "echo", true},
		{"mcp__good__write", "write", false},
		{"mcp__good__big", "big", false},
		{"mcp__good__hang", "hang", false},
		{"mcp__good__odd_name_with_spaces", "odd.name/with spaces", false},
	} {
		got, ok := tools[want.full]
		if !ok {
			t.Fatalf("tool %s missing from %v", want.full, tools)
		}
		if got.Name != want.name || got.Server != "good" || got.ReadOnly != want.readOnly {
			t.Errorf("tool %s = %+v; want name %q server good readOnly %v", want.full, got, want.name, want.readOnly)
		}
		if !json.Valid(got.InputSchema) {
			t.Errorf("tool %s schema %q not JSON", want.full, got.InputSchema)
		}
	}
	if s := string(tools["mcp__good__echo"].InputSchema); !strings.Contains(s, `"text"`) {
		t.Errorf("echo schema %s lacks text", s)
	}

	for _, tc := range []struct {
		name, tool, args string
		max              int
		want             string
		wantIsError      bool
		wantErr          error
	}{
		{"echo", "mcp__good__echo", `{"text":"hi"}`, 100, "hi", false, nil},
		{"tool error", "mcp__good__write", `{"text":"x"}`, 100, "refused: x", true, nil},
		{"no args", "mcp__good__odd_name_with_spaces", ``, 100, "odd", false, nil},
		{"bounded", "mcp__good__big", `{"n":1000}`, 100, strings.Repeat("é", 31) + "\n[truncated: 62 of 1000 bytes shown]", false, nil},
		// A line longer than the reader's 64 KiB buffer is gathered whole.
		{"long line", "mcp__good__big", `{"n":300000}`, 400000, strings.Repeat("é", 150000), false, nil},
		{"unknown", "mcp__good__nope", `{}`, 100, "", false, ErrUnknownTool},
		{"json-rpc error", "mcp__good__rpcerr", `{}`, 1000, "MCP error: internal error: handler failed", true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			text, isError, err := m.Call(ctx, tc.tool, json.RawMessage(tc.args), tc.max)
			if !errors.Is(err, tc.wantErr) || isError != tc.wantIsError || (tc.want != "" && text != tc.want) {
				t.Errorf("Call(%s, %s) = %q, %v, %v; want %q, %v, %v", tc.tool, tc.args, text, isError, err, tc.want, tc.wantIsError, tc.wantErr)
			}
			if len(text) > tc.max {
				t.Errorf("Call(%s) text %d bytes; bound %d", tc.tool, len(text), tc.max)
			}
		})
	}
}

func TestCallCancelled(t *testing.T) {
	checkLeaks(t)
	def, _ := testDef(t, "good", "good")
	m, err := Start(context.Background(), []ServerDef{def}, t.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer closeManager(t, m)

	hanging := make(chan struct{}, 1)
	m.servers[0].stdio.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		if n.Method == "test/hanging" {
			hanging <- struct{}{}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-hanging; cancel() }()
	_, _, err = m.Call(ctx, "mcp__good__hang", nil, 100)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Call(hang) err = %v; want context.Canceled", err)
	}
	// The server is still usable after a cancelled call.
	if text, _, err := m.Call(context.Background(), "mcp__good__echo", json.RawMessage(`{"text":"after"}`), 100); err != nil || text != "after" {
		t.Fatalf("Call(echo) after cancel = %q, %v", text, err)
	}
}

func TestMinimalEnvironmentAndFDs(t *testing.T) {
	checkLeaks(t)
	t.Setenv("OPENAI_API_KEY", "sk-test-must-not-leak")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-must-not-leak")
	def, _ := testDef(t, "envcheck", "good")
	def.Env["EXTRA"] = "1"
	m, err := Start(context.Background(), []ServerDef{def}, t.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer closeManager(t, m)
	text, _, err := m.Call(context.Background(), "mcp__envcheck__inspect", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got inspection
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("inspect %q: %v", text, err)
	}
	allowed := map[string]bool{"PATH": true, "HOME": true, "LANG": true, "TERM": true, "EXTRA": true, modeEnv: true, markerEnv: true}
	seen := map[string]bool{}
	for _, kv := range got.Env {
		k, _, _ := strings.Cut(kv, "=")
		seen[k] = true
		if !allowed[k] {
			t.Errorf("server environment has %q", k)
		}
		if strings.Contains(kv, "must-not-leak") {
			t.Errorf("server environment leaks %q", k)
		}
	}
	if !seen["EXTRA"] || (os.Getenv("PATH") != "" && !seen["PATH"]) {
		t.Errorf("server environment %v lacks EXTRA or PATH", got.Env)
	}

	// Its fds 0, 1, 2 are pipes, none of them one of ours.
	if got.FDs[0] == "" {
		t.Log("no /proc: fd checks skipped")
		return
	}
	for i, target := range got.FDs {
		if !strings.HasPrefix(target, "pipe:") {
			t.Errorf("server fd %d = %q; want a pipe", i, target)
		}
		for j := 0; j < 3; j++ {
			if ours, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", j)); ours == target {
				t.Errorf("server fd %d is our fd %d (%s)", i, j, target)
			}
		}
	}
}

func TestStderrFloodBounded(t *testing.T) {
	checkLeaks(t)
	def, _ := testDef(t, "flood", "flood")
	m, err := Start(context.Background(), []ServerDef{def}, t.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer closeManager(t, m)
	for i := range 3 {
		want := "n" + strconv.Itoa(i)
		text, _, err := m.Call(context.Background(), "mcp__flood__echo", json.RawMessage(`{"text":"`+want+`"}`), 100)
		if err != nil || text != want {
			t.Fatalf("Call(echo) = %q, %v; want %q", text, err, want)
		}
	}
	kept, dropped := m.servers[0].stdio.tail.Bytes()
	if len(kept) > MaxStderrBytes || dropped == 0 {
		t.Errorf("stderr tail kept %d (max %d), dropped %d; want bounded with drops", len(kept), MaxStderrBytes, dropped)
	}
}

func TestStartFailures(t *testing.T) {
	checkLeaks(t)
	for _, tc := range []struct {
		name, mode string
		wantErr    error  // errors.Is target, or nil to check only the server
		wantStderr string // in StartError.Stderr
	}{
		{"exits at once", "exit", ErrServerExited, "fatal: boom"},
		{"line too long", "longline", ErrMessageTooLarge, ""},
		{"no such command", "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good, goodMarker := testDef(t, "good", "good")
			bad, _ := testDef(t, "bad", tc.mode)
			if tc.mode == "" {
				bad.Command = filepath.Join(t.TempDir(), "missing")
			}
			m, err := Start(context.Background(), []ServerDef{good, bad}, t.Logf)
			if m != nil || err == nil {
				t.Fatalf("Start = %v, %v; want failure", m, err)
			}
			var serr *StartError
			if !errors.As(err, &serr) || serr.Server != "bad" {
				t.Fatalf("Start err = %v; want *StartError for bad", err)
			}
			// The server's own failure, not the client's view of it
			// ("initialize: transport error: ...").
			if tc.wantErr != nil && serr.Err != tc.wantErr {
				t.Errorf("Start err = %v; want %v", err, tc.wantErr)
			}
			if !strings.Contains(string(serr.Stderr), tc.wantStderr) {
				t.Errorf("stderr tail %q lacks %q", serr.Stderr, tc.wantStderr)
			}
			// The good server may not have started before the failure
			// cancelled it; if it did, it is gone.
			if _, err := os.Stat(goodMarker); err == nil {
				pid, _ := readMarker(t, goodMarker)
				requireGone(t, pid)
			}
		})
	}
}

func TestStartCancelledWhileHanging(t *testing.T) {
	checkLeaks(t)
	good, goodMarker := testDef(t, "good", "good")
	hang, hangMarker := testDef(t, "hang", "hang")
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		m   *Manager
		err error
	}
	done := make(chan result, 1)
	go func() {
		m, err := Start(ctx, []ServerDef{good, hang}, t.Logf)
		done <- result{m, err}
	}()
	hangPid, hangChild := readMarker(t, hangMarker)
	goodPid, _ := readMarker(t, goodMarker)
	cancel()
	var r result
	select {
	case r = <-done:
	case <-time.After(testBound):
		t.Fatalf("Start did not return within %v of its context's end", testBound)
	}
	if r.m != nil || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Start = %v, %v; want nil, context.Canceled", r.m, r.err)
	}
	requireGone(t, hangPid, hangChild, goodPid)
}

func TestCloseKillsStubbornServer(t *testing.T) {
	checkLeaks(t)
	def, marker := testDef(t, "stubborn", "stubborn")
	good, goodMarker := testDef(t, "good", "good")
	m, err := Start(context.Background(), []ServerDef{def, good}, t.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	pid, child := readMarker(t, marker)
	goodPid, _ := readMarker(t, goodMarker)
	// An ended ctx: Close still shuts everything down first, then kills what
	// has not exited.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Close = %v; want context.Canceled", err)
	}
	waitManager(t, m)
	requireGone(t, pid, child, goodPid)
}

func TestOversizedLineFailsOnlyThatServer(t *testing.T) {
	checkLeaks(t)
	a, _ := testDef(t, "a", "good")
	b, _ := testDef(t, "b", "good")
	m, err := Start(context.Background(), []ServerDef{a, b}, t.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer closeManager(t, m)
	args := json.RawMessage(fmt.Sprintf(`{"n":%d}`, MaxMessageBytes+100))
	if _, _, err := m.Call(context.Background(), "mcp__a__big", args, 100); !errors.Is(err, ErrMessageTooLarge) {
		t.Fatalf("Call(big) err = %v; want ErrMessageTooLarge", err)
	}
	if _, _, err := m.Call(context.Background(), "mcp__a__echo", json.RawMessage(`{"text":"x"}`), 100); !errors.Is(err, ErrMessageTooLarge) {
		t.Errorf("Call(a echo) after failure err = %v; want ErrMessageTooLarge", err)
	}
	if text, _, err := m.Call(context.Background(), "mcp__b__echo", json.RawMessage(`{"text":"ok"}`), 100); err != nil || text != "ok" {
		t.Errorf("Call(b echo) = %q, %v; want ok", text, err)
	}
}

// httpTestServer serves mcp-go's streamable HTTP server, counting DELETEs.
// With legacy, it refuses server/discover, so the client falls back to the
// initialize handshake and a session that Close must DELETE.
func httpTestServer(t *testing.T, block chan struct{}, legacy, hangDelete bool) (*httptest.Server, *atomic.Int32) {
	s := server.NewMCPServer("http-test", "1.0.0")
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text"), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			v, _ := req.GetArguments()["text"].(string)
			return mcp.NewToolResultText(v), nil
		})
	s.AddTool(mcp.NewTool("big", mcp.WithNumber("n", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n, _ := req.GetArguments()["n"].(float64)
			return mcp.NewToolResultText(strings.Repeat("x", int(n))), nil
		})
	h := server.NewStreamableHTTPServer(s)
	var deletes atomic.Int32
	var once sync.Once
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if block != nil {
			// The server notices a closed connection only once the body
			// is read.
			_, _ = io.Copy(io.Discard, r.Body)
			once.Do(func() { close(block) })
			<-r.Context().Done() // hangs at startup until the client gives up
			return
		}
		if r.Method == http.MethodDelete {
			deletes.Add(1)
			if hangDelete {
				<-r.Context().Done() // until the client aborts
				return
			}
		}
		if legacy && r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(body, &req) == nil && req.Method == "server/discover" {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, req.ID)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, &deletes
}

func TestHTTPServer(t *testing.T) {
	checkLeaks(t)
	for _, tc := range []struct {
		name        string
		legacy      bool
		wantDeletes int32
	}{
		{"modern, stateless", false, 0},
		{"legacy session", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, deletes := httpTestServer(t, nil, tc.legacy, false)
			m, err := Start(context.Background(), []ServerDef{{Name: "web", URL: ts.URL}}, t.Logf)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			tools := m.Tools()
			if len(tools) != 2 || tools[1].FullName != "mcp__web__echo" || !tools[1].ReadOnly {
				t.Fatalf("Tools = %+v", tools)
			}
			text, isError, err := m.Call(context.Background(), "mcp__web__echo", json.RawMessage(`{"text":"over http"}`), 100)
			if err != nil || isError || text != "over http" {
				t.Fatalf("Call = %q, %v, %v", text, isError, err)
			}
			// A body over MaxHTTPBodyBytes fails that call, not the process.
			big := json.RawMessage(fmt.Sprintf(`{"n":%d}`, MaxHTTPBodyBytes+1000))
			if _, _, err := m.Call(context.Background(), "mcp__web__big", big, 100); !errors.Is(err, ErrMessageTooLarge) {
				t.Errorf("Call(big) err = %v; want ErrMessageTooLarge", err)
			}
			closeManager(t, m)
			if got := deletes.Load(); got != tc.wantDeletes {
				t.Errorf("DELETE requests = %d; want %d", got, tc.wantDeletes)
			}
		})
	}
}

func TestHTTPStartCancelled(t *testing.T) {
	checkLeaks(t)
	block := make(chan struct{})
	ts, _ := httpTestServer(t, block, false, false)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-block; cancel() }()
	m, err := Start(ctx, []ServerDef{{Name: "web", URL: ts.URL}}, t.Logf)
	if m != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("Start = %v, %v; want nil, context.Canceled", m, err)
	}
}

func TestHTTPCloseAbortsHangingDelete(t *testing.T) {
	checkLeaks(t)
	ts, deletes := httpTestServer(t, nil, true, true)
	m, err := Start(context.Background(), []ServerDef{{Name: "web", URL: ts.URL}}, t.Logf)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for deletes.Load() == 0 {
			time.Sleep(time.Millisecond) // polling the server's counter; not a timing assertion
		}
		cancel()
	}()
	if err := m.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Close = %v; want context.Canceled", err)
	}
	waitManager(t, m)
}

func TestStartEmpty(t *testing.T) {
	checkLeaks(t)
	m, err := Start(context.Background(), nil, nil)
	if err != nil || len(m.Tools()) != 0 {
		t.Fatalf("Start(nil) = %v, %v", m, err)
	}
	if _, _, err := m.Call(context.Background(), "mcp__x__y", nil, 10); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("Call = %v; want ErrUnknownTool", err)
	}
	closeManager(t, m)
}

func TestStartRejectsBadDefs(t *testing.T) {
	checkLeaks(t)
	for _, def := range []ServerDef{
		{Name: "none"},
		{Name: "both", Command: "/bin/true", URL: "http://127.0.0.1:1/mcp"},
		{Name: "badenv", Command: "/bin/true", Env: map[string]string{"A=B": "c"}},
	} {
		m, err := Start(context.Background(), []ServerDef{def}, t.Logf)
		var serr *StartError
		if m != nil || !errors.As(err, &serr) || serr.Server != def.Name {
			t.Errorf("Start(%+v) = %v, %v; want *StartError", def, m, err)
		}
	}
}

// BenchmarkCall measures one tool call round trip to a stdio server.
func BenchmarkCall(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	m, err := Start(context.Background(), []ServerDef{{Name: "good", Command: exe, Env: map[string]string{modeEnv: "good"}}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), CleanupWait)
		defer cancel()
		m.Close(ctx)
		m.wait()
	}()
	args := json.RawMessage(`{"text":"hello"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := m.Call(context.Background(), "mcp__good__echo", args, 1000); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallMCPGoStdio is the same call through mcp-go's own stdio
// transport, for a side-by-side figure.
func BenchmarkCallMCPGoStdio(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	c, err := client.NewStdioMCPClient(exe, []string{modeEnv + "=good"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		b.Fatal(err)
	}
	// Like Start: the client remembers listed tools and consults them per call.
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		b.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = json.RawMessage(`{"text":"hello"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.CallTool(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHTTPHeaders: a server that requires credentials in headers is reached
// with ServerDef.Headers on every request (the session DELETE included),
// and fails to start without them.
func TestHTTPHeaders(t *testing.T) {
	checkLeaks(t)
	inner, _ := httpTestServer(t, nil, true, false)
	var requests, refused atomic.Int32
	var deleteAuthorized atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Header.Get("Authorization") != "Bearer tok-123" || r.Header.Get("X-Key") != "key-456" {
			refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodDelete {
			deleteAuthorized.Store(true)
		}
		proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
			u, _ := url.Parse(inner.URL)
			pr.SetURL(u)
		}}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)

	if m, err := Start(context.Background(), []ServerDef{{Name: "web", URL: ts.URL}}, t.Logf); err == nil {
		closeManager(t, m)
		t.Fatal("Start without the required headers succeeded")
	}
	refusedBefore := refused.Load()
	headers := map[string]string{"Authorization": "Bearer tok-123", "X-Key": "key-456"}
	m, err := Start(context.Background(), []ServerDef{{Name: "web", URL: ts.URL, Headers: headers}}, t.Logf)
	if err != nil {
		t.Fatalf("Start with headers: %v", err)
	}
	if text, _, err := m.Call(context.Background(), "mcp__web__echo", json.RawMessage(`{"text":"authorized"}`), 100); err != nil || text != "authorized" {
		t.Fatalf("Call = %q, %v", text, err)
	}
	closeManager(t, m)
	if refused.Load() != refusedBefore {
		t.Errorf("%d requests refused with the headers set", refused.Load()-refusedBefore)
	}
	if !deleteAuthorized.Load() {
		t.Error("the session DELETE did not carry the headers")
	}
}

package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/auth"
	"github.com/magi-code/magi-code/runner/provider"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testKey = "sk-ant-api03-TESTKEYTESTKEYTESTKEY"

func render(evs []provider.StreamEvent) []string {
	var out []string
	for _, ev := range evs {
		switch ev.Kind {
		case provider.TextDelta:
			out = append(out, "text:"+ev.Text)
		case provider.ReasoningSummary:
			out = append(out, "summary:"+ev.Text)
		case provider.ToolCallKind:
			out = append(out, "call:"+ev.Call.ID+":"+ev.Call.Name+":"+string(ev.Call.Arguments))
		case provider.UsageKind:
			u := ev.Usage
			out = append(out, fmt.Sprintf("usage:%d/%d/%d/%d", u.InputTokens, u.OutputTokens, u.CachedInputTokens, u.ReasoningTokens))
		case provider.Done:
			if ev.MaxTokens {
				out = append(out, "done:max_tokens")
				break
			}
			out = append(out, "done")
		default:
			out = append(out, fmt.Sprint("kind:", ev.Kind))
		}
	}
	return out
}

type logs struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.buf, format+"\n", args...)
}

func (l *logs) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.buf.String() }

func start(t *testing.T, h http.Handler, cfg Config) *Provider {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(srv.Client().CloseIdleConnections)
	cfg.BaseURL = srv.URL
	cfg.HTTPClient = srv.Client()
	if cfg.Credentials == nil {
		cfg.Credentials = auth.NewStatic(auth.APIKey, testKey)
	}
	return New(cfg)
}

func TestStream(t *testing.T) {
	const sonnet = "claude-sonnet-4-5-20250929"
	tests := []struct {
		name     string
		model    string
		thinking string
		handler  http.HandlerFunc
		want     []string
		wantCode protocol.Code
	}{
		{
			name:    "text",
			handler: sse(textMessage(sonnet, "Hel", "lo")...),
			want:    []string{"text:Hel", "text:lo", "done"},
		},
		{
			name:    "stop_reason max_tokens is the output token limit",
			handler: sse(msgStart(sonnet), textStart(0), textDelta(0, "cut he"), stop(0), msgDelta("max_tokens"), msgStop()),
			want:    []string{"text:cut he", "done:max_tokens"},
		},
		{
			name:    "stop_reason refusal is not",
			handler: sse(msgStart(sonnet), textStart(0), textDelta(0, "no"), stop(0), msgDelta("refusal"), msgStop()),
			want:    []string{"text:no", "done"},
		},
		{
			name: "tool use with input split across deltas",
			handler: sse(
				msgStart(sonnet), textStart(0), textDelta(0, "checking"), stop(0),
				toolStart(1, "toolu_a", "shell"), jsonDelta(1, ""), jsonDelta(1, `{"comm`), ping(), jsonDelta(1, `and": "ls"`), jsonDelta(1, `}`), stop(1),
				toolStart(2, "toolu_b", "read_file"), jsonDelta(2, `{"path":`), jsonDelta(2, `"a.txt"}`), stop(2),
				msgDelta("tool_use"), msgStop(),
			),
			want: []string{"text:checking", `call:toolu_a:shell:{"command": "ls"}`, `call:toolu_b:read_file:{"path":"a.txt"}`, "done"},
		},
		{
			name:    "tool use without input",
			handler: sse(msgStart(sonnet), toolStart(0, "toolu_a", "list_dir"), stop(0), msgDelta("tool_use"), msgStop()),
			want:    []string{"call:toolu_a:list_dir:{}", "done"},
		},
		{
			name: "malformed input stays valid JSON",
			handler: sse(msgStart(sonnet), toolStart(0, "toolu_a", "shell"), jsonDelta(0, `{"command":`), stop(0),
				msgDelta("max_tokens"), msgStop()),
			want: []string{`call:toolu_a:shell:"{\"command\":"`, "done:max_tokens"},
		},
		{
			name:  "summarized thinking of a Claude 4 model is a summary",
			model: sonnet, thinking: "low",
			handler: sse(msgStart(sonnet), thinkStart(0), thinkDelta(0, "Plan: list "), thinkDelta(0, "the files."), sigDelta(0, "EqQBCgIYAhIM"), stop(0),
				textStart(1), textDelta(1, "Done."), stop(1), msgDelta("end_turn"), msgStop()),
			want: []string{"summary:Plan: list the files.", "text:Done.", "done"},
		},
		{
			name:  "adaptive thinking of a current model is a summary",
			model: "claude-opus-4-6", thinking: "high",
			handler: sse(msgStart("claude-opus-4-6"), thinkStart(0), thinkDelta(0, "Summary."), sigDelta(0, "sig"), stop(0),
				textStart(1), textDelta(1, "ok"), stop(1), msgDelta("end_turn"), msgStop()),
			want: []string{"summary:Summary.", "text:ok", "done"},
		},
		{
			name:  "raw thinking of Claude 3.7 is dropped",
			model: "claude-3-7-sonnet-20250219", thinking: "medium",
			handler: sse(msgStart("claude-3-7-sonnet-20250219"), thinkStart(0), thinkDelta(0, "raw chain of thought"), sigDelta(0, "sig"), stop(0),
				textStart(1), textDelta(1, "answer"), stop(1), msgDelta("end_turn"), msgStop()),
			want: []string{"text:answer", "done"},
		},
		{
			name:  "thinking of a foreign model is dropped",
			model: "deepseek-reasoner", thinking: "high",
			handler: sse(msgStart("deepseek-reasoner"), thinkStart(0), thinkDelta(0, "raw"), stop(0),
				textStart(1), textDelta(1, "answer"), stop(1), msgDelta("end_turn"), msgStop()),
			want: []string{"text:answer", "done"},
		},
		{
			name:  "thinking not asked for (no summarized display) is dropped",
			model: sonnet,
			handler: sse(msgStart(sonnet), thinkStart(0), thinkDelta(0, "unasked"), stop(0),
				textStart(1), textDelta(1, "answer"), stop(1), msgDelta("end_turn"), msgStop()),
			want: []string{"text:answer", "done"},
		},
		{
			name:  "redacted thinking is dropped",
			model: sonnet, thinking: "low",
			handler: sse(msgStart(sonnet), redacted(0, "EmwKAhgBEgy3va3pzix"), stop(0),
				textStart(1), textDelta(1, "answer"), stop(1), msgDelta("end_turn"), msgStop()),
			want: []string{"text:answer", "done"},
		},
		{
			name:  "empty summary is not emitted",
			model: sonnet, thinking: "low",
			handler: sse(msgStart(sonnet), thinkStart(0), sigDelta(0, "sig"), stop(0),
				textStart(1), textDelta(1, "answer"), stop(1), msgDelta("end_turn"), msgStop()),
			want: []string{"text:answer", "done"},
		},
		{
			name:     "529 overloaded",
			handler:  status(529, overloaded),
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name:     "429 rate limited",
			handler:  status(http.StatusTooManyRequests, `{"type":"error","error":{"type":"rate_limit_error","message":"limit for sk-ant-SECRETSECRETSECRET"}}`),
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name:     "500",
			handler:  status(http.StatusInternalServerError, "trace at /home/user/.secret sk-ant-SECRETSECRETSECRET"),
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name:     "401 rejected credential",
			handler:  status(http.StatusUnauthorized, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-ant-SECRETSECRETSECRET"}}`),
			wantCode: protocol.CodeProviderUnavailable,
		},
		{
			name:     "overloaded error event mid-stream",
			handler:  sse(msgStart(sonnet), textStart(0), textDelta(0, "par"), ev("error", overloaded)),
			want:     []string{"text:par"},
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name:     "clean cut mid-stream",
			handler:  sse(msgStart(sonnet), textStart(0), textDelta(0, "par"), textDelta(0, "tial")),
			want:     []string{"text:par", "text:tial"},
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name: "cut after message_delta",
			handler: sse(msgStart(sonnet), toolStart(0, "toolu_a", "shell"), jsonDelta(0, `{}`), stop(0),
				msgDelta("tool_use")),
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name: "abrupt cut mid-event",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sse(msgStart(sonnet), textStart(0), textDelta(0, "par"))(w, r)
				io.WriteString(w, "event: content_block_delta\ndata: {\"type\":\"content_bl")
				w.(http.Flusher).Flush()
				if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
					conn.Close()
				}
			},
			want:     []string{"text:par"},
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name:     "delta for a block never started",
			handler:  sse(msgStart(sonnet), textDelta(3, "x"), msgStop()),
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name:     "malformed event data",
			handler:  sse(msgStart(sonnet), ev("content_block_start", `{"type":"content_block_start","index":"zero"`), msgStop()),
			wantCode: protocol.CodeExecutionFailed,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l logs
			model := tc.model
			if model == "" {
				model = sonnet
			}
			p := start(t, tc.handler, Config{Logf: l.logf})
			var evs []provider.StreamEvent
			err := p.Stream(context.Background(), provider.Request{Model: model, Thinking: tc.thinking, Messages: []provider.Message{{Role: "user", Text: "hi"}}},
				func(ev provider.StreamEvent) error {
					if ev.Kind != provider.UsageKind { // TestUsage
						evs = append(evs, ev)
					}
					return nil
				})
			if got := render(evs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("events = %q; want %q", got, tc.want)
			}
			var pe *provider.Error
			switch {
			case tc.wantCode == "" && err != nil:
				t.Errorf("err = %v; want nil", err)
			case tc.wantCode != "" && (!errors.As(err, &pe) || pe.Code != tc.wantCode):
				t.Errorf("err = %v; want code %s", err, tc.wantCode)
			}
			if err != nil && err.Error() != "provider: "+string(tc.wantCode) {
				t.Errorf("error text %q is not just the code", err.Error())
			}
			if s := l.String(); strings.Contains(s, "SECRET") || strings.Contains(s, "secret") || strings.Contains(s, "TESTKEY") {
				t.Errorf("log quotes a body or key: %q", s)
			}
		})
	}
}

// capture records each request's headers and decoded body.
type capture struct {
	mu      sync.Mutex
	headers []http.Header
	bodies  []map[string]any
}

func (c *capture) handler(frames ...[]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		c.mu.Lock()
		n := len(c.bodies)
		c.headers = append(c.headers, r.Header.Clone())
		c.bodies = append(c.bodies, body)
		c.mu.Unlock()
		if r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		sse(frames[min(n, len(frames)-1)]...)(w, r)
	}
}

func TestRequestShape(t *testing.T) {
	var c capture
	p := start(t, c.handler(textMessage("claude-sonnet-4-5", "ok")), Config{Model: "claude-sonnet-4-5"})
	req := provider.Request{
		System: []string{"instructions", "skills"},
		Messages: []provider.Message{
			{Role: "user", Text: "list"},
			{Role: "assistant", Text: "", ToolCalls: []provider.ToolCall{
				{ID: "toolu_1", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)},
				{ID: "toolu_2", Name: "shell", Arguments: json.RawMessage(`"{\"command\":"`)},
			}},
			{Role: "tool", Text: "a.txt\n", ToolCallID: "toolu_1", ToolName: "list_dir"},
			{Role: "tool", Text: "", ToolCallID: "toolu_2", ToolName: "shell"},
			{Role: "assistant", Text: "one file"},
			{Role: "system", Text: "summary of earlier turns"},
			{Role: "user", Text: "thanks"},
		},
		Tools: []provider.ToolSpec{{Name: "list_dir", Description: "list", Schema: json.RawMessage(
			`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}},
	}
	if err := p.Stream(context.Background(), req, func(provider.StreamEvent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	h, body := c.headers[0], c.bodies[0]
	if got := h.Get("X-Api-Key"); got != testKey {
		t.Errorf("x-api-key = %q", got)
	}
	if got := h.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q; want none with an API key", got)
	}
	if h.Get("Anthropic-Version") == "" {
		t.Errorf("no anthropic-version header")
	}
	want := map[string]any{
		"model":      "claude-sonnet-4-5",
		"max_tokens": float64(DefaultMaxTokens),
		"stream":     true,
		"system": []any{
			map[string]any{"type": "text", "text": "instructions"},
			map[string]any{"type": "text", "text": "skills"},
			map[string]any{"type": "text", "text": "summary of earlier turns"},
		},
		"messages": []any{
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "list"}}},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "tool_use", "id": "toolu_1", "name": "list_dir", "input": map[string]any{"path": "."}},
				map[string]any{"type": "tool_use", "id": "toolu_2", "name": "shell", "input": map[string]any{}},
			}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": []any{map[string]any{"type": "text", "text": "a.txt\n"}}},
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_2"},
			}},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "one file"}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "thanks"}}},
		},
		"tools": []any{map[string]any{
			"name": "list_dir", "description": "list",
			"input_schema": map[string]any{
				"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}},
				"required": []any{"path"}, "additionalProperties": false,
			},
		}},
	}
	for k, v := range want {
		if !reflect.DeepEqual(body[k], v) {
			got, _ := json.Marshal(body[k])
			exp, _ := json.Marshal(v)
			t.Errorf("body[%s] = %s\nwant %s", k, got, exp)
		}
	}
	for _, k := range []string{"thinking", "output_config", "temperature"} {
		if _, ok := body[k]; ok {
			t.Errorf("body has %s = %v; want none by default", k, body[k])
		}
	}
}

func TestThinkingParams(t *testing.T) {
	tests := []struct {
		model, level string
		want         map[string]any // keys thinking, output_config, max_tokens
	}{
		{"claude-sonnet-4-5", "", map[string]any{"max_tokens": float64(8192)}},
		{"claude-sonnet-4-5", "off", map[string]any{"thinking": map[string]any{"type": "disabled"}, "max_tokens": float64(8192)}},
		{"claude-sonnet-4-5", "low", map[string]any{
			"thinking":   map[string]any{"type": "enabled", "budget_tokens": float64(4096), "display": "summarized"},
			"max_tokens": float64(8192)}},
		{"claude-sonnet-4-5-20250929", "high", map[string]any{
			"thinking":   map[string]any{"type": "enabled", "budget_tokens": float64(24576), "display": "summarized"},
			"max_tokens": float64(24576 + 8192)}},
		{"claude-opus-4-1-20250805", "minimal", map[string]any{
			"thinking":   map[string]any{"type": "enabled", "budget_tokens": float64(1024), "display": "summarized"},
			"max_tokens": float64(8192)}},
		{"claude-3-7-sonnet-20250219", "medium", map[string]any{
			"thinking":   map[string]any{"type": "enabled", "budget_tokens": float64(10240)},
			"max_tokens": float64(10240 + 8192)}},
		{"claude-opus-4-6", "medium", map[string]any{
			"thinking":      map[string]any{"type": "adaptive", "display": "summarized"},
			"output_config": map[string]any{"effort": "medium"},
			"max_tokens":    float64(8192)}},
		{"claude-mythos-preview", "minimal", map[string]any{
			"thinking":      map[string]any{"type": "adaptive", "display": "summarized"},
			"output_config": map[string]any{"effort": "low"},
			"max_tokens":    float64(8192)}},
		{"claude-sonnet-5", "high", map[string]any{
			"thinking":      map[string]any{"type": "adaptive", "display": "summarized"},
			"output_config": map[string]any{"effort": "high"},
			"max_tokens":    float64(8192)}},
		{"deepseek-reasoner", "low", map[string]any{
			"thinking":   map[string]any{"type": "enabled", "budget_tokens": float64(4096)},
			"max_tokens": float64(8192)}},
	}
	for _, tc := range tests {
		t.Run(tc.model+"/"+tc.level, func(t *testing.T) {
			var c capture
			p := start(t, c.handler(textMessage(tc.model, "ok")), Config{})
			if err := p.Stream(context.Background(), provider.Request{Model: tc.model, Thinking: tc.level, Messages: []provider.Message{{Role: "user", Text: "hi"}}},
				func(provider.StreamEvent) error { return nil }); err != nil {
				t.Fatal(err)
			}
			got := map[string]any{}
			for _, k := range []string{"thinking", "output_config", "max_tokens"} {
				if v, ok := c.bodies[0][k]; ok {
					got[k] = v
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(tc.want)
				t.Errorf("params = %s; want %s", g, w)
			}
		})
	}
}

// TestThinkingReplay checks that the thinking blocks of a response that
// asked for tools go back, signature intact, before its tool_use blocks.
func TestThinkingReplay(t *testing.T) {
	const model = "claude-sonnet-4-5"
	var c capture
	first := []string{msgStart(model), thinkStart(0), thinkDelta(0, "I should list."), sigDelta(0, "SIG=="), stop(0),
		redacted(1, "REDACTED=="), stop(1),
		textStart(2), textDelta(2, "Listing."), stop(2),
		toolStart(3, "toolu_9", "list_dir"), jsonDelta(3, `{"path":"."}`), stop(3), msgDelta("tool_use"), msgStop()}
	p := start(t, c.handler(first, textMessage(model, "one file")), Config{})
	var calls []provider.ToolCall
	msgs := []provider.Message{{Role: "user", Text: "list"}}
	if err := p.Stream(context.Background(), provider.Request{Model: model, Thinking: "low", Messages: msgs}, func(ev provider.StreamEvent) error {
		if ev.Kind == provider.ToolCallKind {
			calls = append(calls, ev.Call)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs,
		provider.Message{Role: "assistant", Text: "Listing.", ToolCalls: calls},
		provider.Message{Role: "tool", Text: "a.txt", ToolCallID: "toolu_9"})
	if err := p.Stream(context.Background(), provider.Request{Model: model, Thinking: "low", Messages: msgs}, func(provider.StreamEvent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(c.bodies[1]["messages"].([]any)[1])
	want := `{"content":[{"signature":"SIG==","thinking":"I should list.","type":"thinking"},{"data":"REDACTED==","type":"redacted_thinking"},` +
		`{"text":"Listing.","type":"text"},{"id":"toolu_9","input":{"path":"."},"name":"list_dir","type":"tool_use"}],"role":"assistant"}`
	if string(got) != want {
		t.Errorf("replayed assistant message = %s\nwant %s", got, want)
	}
}

func TestKeptBounded(t *testing.T) {
	p := New(Config{})
	blocks := []provider.ToolCall{{ID: "x"}}
	for i := range MaxKeptResponses + 10 {
		p.keepLocked(nil, blocks) // no thinking: nothing kept
		r := response{}
		r.thinkingBlocks = append(r.thinkingBlocks, newThinking())
		p.keepLocked(r.thinkingBlocks, []provider.ToolCall{{ID: fmt.Sprint("t", i)}, {ID: fmt.Sprint("u", i)}})
	}
	if len(p.kept) != 2*MaxKeptResponses || len(p.keptOrder) != MaxKeptResponses {
		t.Errorf("kept %d IDs over %d responses; want %d over %d", len(p.kept), len(p.keptOrder), 2*MaxKeptResponses, MaxKeptResponses)
	}
	if _, ok := p.kept["t0"]; ok {
		t.Errorf("oldest response still kept")
	}
}

func TestOAuthHeaders(t *testing.T) {
	var c capture
	p := start(t, c.handler(textMessage("claude-sonnet-4-5", "ok")), Config{Credentials: auth.NewStatic(auth.OAuth, "oauth-access-TOKEN")})
	if err := p.Stream(context.Background(), provider.Request{Model: "claude-sonnet-4-5"}, func(provider.StreamEvent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	h := c.headers[0]
	if got := h.Get("Authorization"); got != "Bearer oauth-access-TOKEN" {
		t.Errorf("Authorization = %q", got)
	}
	if got := h.Get("X-Api-Key"); got != "" {
		t.Errorf("x-api-key = %q; want none with OAuth", got)
	}
	if got := strings.Join(h.Values("Anthropic-Beta"), ","); !strings.Contains(got, oauthBeta) {
		t.Errorf("anthropic-beta = %q; want %s", got, oauthBeta)
	}
}

// failingSource stands for a credential whose refresh failed.
type failingSource struct{ err error }

func (f failingSource) Token(ctx context.Context) (auth.Kind, string, error) { return "", "", f.err }

func TestCredentialFailure(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode protocol.Code
	}{
		{"refresh failed", auth.Unavailable(errors.New("token endpoint said no")), protocol.CodeProviderUnavailable},
		{"uncoded failure", errors.New("disk on fire"), protocol.CodeProviderUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c capture
			p := start(t, c.handler(textMessage("claude-sonnet-4-5", "ok")), Config{Credentials: failingSource{tc.err}})
			err := p.Stream(context.Background(), provider.Request{Model: "claude-sonnet-4-5"}, func(provider.StreamEvent) error { return nil })
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Code != tc.wantCode || err.Error() != "provider: "+string(tc.wantCode) {
				t.Errorf("Stream = %v; want %s", err, tc.wantCode)
			}
			if len(c.bodies) != 0 {
				t.Errorf("a request was sent without a credential")
			}
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	release := make(chan struct{})
	p := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(msgStart("m"), textStart(0), textDelta(0, "first"))(w, r)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}), Config{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := p.Stream(ctx, provider.Request{Model: "m"}, func(ev provider.StreamEvent) error {
		cancel() // after the first delta
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Stream = %v; want context.Canceled", err)
	}
}

func TestEmitErrorStops(t *testing.T) {
	p := start(t, sse(textMessage("m", "a", "b")...), Config{})
	stopErr := errors.New("sink full")
	n := 0
	err := p.Stream(context.Background(), provider.Request{Model: "m"}, func(provider.StreamEvent) error { n++; return stopErr })
	if err != stopErr || n != 1 {
		t.Fatalf("Stream = %v after %d events; want the emit error after 1", err, n)
	}
}

func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-env")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "tok-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Env: leaked")
	var c capture
	p := start(t, c.handler(textMessage("m", "ok")), Config{})
	if err := p.Stream(context.Background(), provider.Request{Model: "m"}, func(provider.StreamEvent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	h := c.headers[0]
	if h.Get("X-Api-Key") != testKey || h.Get("Authorization") != "" || h.Get("X-Env") != "" {
		t.Errorf("environment leaked into request: %v", h)
	}
}

func newThinking() sdkBlock { return sdkNewThinking("s", "t") }

// TestNothingOnStderr: the SDK prints a deprecation warning to stderr when
// claude-opus-4-6 or claude-mythos-preview get budget thinking; serve must
// never write there, so those models get adaptive thinking.
func TestNothingOnStderr(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	for _, model := range []string{"claude-opus-4-6", "claude-mythos-preview"} {
		for _, level := range []string{"", "off", "minimal", "low", "medium", "high"} {
			p := start(t, sse(textMessage(model, "ok")...), Config{})
			if err := p.Stream(context.Background(), provider.Request{Model: model, Thinking: level}, func(provider.StreamEvent) error { return nil }); err != nil {
				t.Errorf("%s/%s: %v", model, level, err)
			}
		}
	}
	os.Stderr = saved
	w.Close()
	out, _ := io.ReadAll(r)
	r.Close()
	if len(out) != 0 {
		t.Errorf("stderr got %q", out)
	}
}

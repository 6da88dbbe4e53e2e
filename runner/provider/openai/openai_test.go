package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/auth"
	"github.com/magi-code/magi-code/runner/provider"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func chunk(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + "}]}\n\n"
}

const done = "data: [DONE]\n\n"

// sse is a handler that streams frames, flushing after each.
func sse(frames ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, f := range frames {
			io.WriteString(w, f)
			w.(http.Flusher).Flush()
		}
	}
}

func render(evs []provider.StreamEvent) []string {
	var out []string
	for _, ev := range evs {
		switch ev.Kind {
		case provider.TextDelta:
			out = append(out, "text:"+ev.Text)
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

func start(t *testing.T, h http.HandlerFunc) *Provider {
	t.Helper()
	return New(Config{BaseURL: startHandler(t, h) + "/v1", APIKey: "test-key"})
}

// startHandler serves h and returns its URL.
func startHandler(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(srv.Client().CloseIdleConnections)
	return srv.URL
}

func TestStream(t *testing.T) {
	secretBody := `{"error":{"message":"rate limited for key sk-SECRETSECRETSECRET1234","type":"rate_limit"}}`
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		want     []string
		wantCode protocol.Code
	}{
		{
			name:    "text",
			handler: sse(chunk(`{"role":"assistant","content":""}`, ""), chunk(`{"content":"Hel"}`, ""), chunk(`{"content":"lo"}`, ""), chunk(`{}`, "stop"), done),
			want:    []string{"text:Hel", "text:lo", "done"},
		},
		{
			name:    "finish_reason length is the output token limit",
			handler: sse(chunk(`{"content":"cut he"}`, "length"), done),
			want:    []string{"text:cut he", "done:max_tokens"},
		},
		{
			name:    "finish_reason content_filter is not",
			handler: sse(chunk(`{"content":"x"}`, "content_filter"), done),
			want:    []string{"text:x", "done"},
		},
		{
			name: "usage in the last chunk",
			handler: sse(chunk(`{"content":"hi"}`, ""), chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"list_dir","arguments":"{}"}}]}`, ""), chunk(`{}`, "tool_calls"),
				`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1200,"completion_tokens":35,"total_tokens":1235,"prompt_tokens_details":{"cached_tokens":1024},"completion_tokens_details":{"reasoning_tokens":20}}}`+"\n\n", done),
			want: []string{"text:hi", "call:call_a:list_dir:{}", "usage:1200/35/1024/20", "done"},
		},
		{
			name:    "usage null is none",
			handler: sse(chunk(`{"content":"hi"}`, "stop"), `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":null}`+"\n\n", done),
			want:    []string{"text:hi", "done"},
		},
		{
			name: "tool calls split across chunks",
			handler: sse(
				chunk(`{"content":"checking"}`, ""),
				chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"shell","arguments":""}}]}`, ""),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"comm"}}]}`, ""),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"and\":\"ls\"}"}}]}`, ""),
				chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"read_file","arguments":"{\"path\":"}}]}`, ""),
				chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"\"a.txt\"}"}}]}`, ""),
				chunk(`{}`, "tool_calls"),
				done,
			),
			want: []string{"text:checking", `call:call_a:shell:{"command":"ls"}`, `call:call_b:read_file:{"path":"a.txt"}`, "done"},
		},
		{
			name: "tool call without id or arguments",
			handler: sse(
				chunk(`{"tool_calls":[{"index":0,"function":{"name":"list_dir"}}]}`, ""),
				chunk(`{}`, "tool_calls"), done,
			),
			want: []string{"call:call_0:list_dir:{}", "done"},
		},
		{
			name: "malformed arguments stay valid JSON",
			handler: sse(
				chunk(`{"tool_calls":[{"index":0,"id":"x","function":{"name":"shell","arguments":"{\"command\":"}}]}`, ""),
				chunk(`{}`, "tool_calls"), done,
			),
			want: []string{`call:x:shell:"{\"command\":"`, "done"},
		},
		{
			name:     "clean cut mid-stream",
			handler:  sse(chunk(`{"content":"par"}`, ""), chunk(`{"content":"tial"}`, "")),
			want:     []string{"text:par", "text:tial"},
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name: "abrupt cut mid-chunk",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, chunk(`{"content":"par"}`, ""))
				io.WriteString(w, `data: {"id":"c1","choi`)
				w.(http.Flusher).Flush()
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					conn.Close()
				}
			},
			want:     []string{"text:par"},
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name: "tool call cut before finish is not run",
			handler: sse(
				chunk(`{"tool_calls":[{"index":0,"id":"x","function":{"name":"shell","arguments":"{}"}}]}`, ""),
			),
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name: "429",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				io.WriteString(w, secretBody)
			},
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name: "401 rejected key",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, secretBody)
			},
			wantCode: protocol.CodeProviderUnavailable,
		},
		{
			name: "500",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, "internal trace at /home/user/.secret")
			},
			wantCode: protocol.CodeExecutionFailed,
		},
		{
			name:     "error event in stream",
			handler:  sse(chunk(`{"content":"a"}`, ""), `data: {"error":{"message":"overloaded sk-SECRETSECRETSECRET1234"}}`+"\n\n"),
			want:     []string{"text:a"},
			wantCode: protocol.CodeExecutionFailed,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, tc.handler)
			var evs []provider.StreamEvent
			err := p.Stream(context.Background(), provider.Request{Model: "m", Messages: []provider.Message{{Role: "user", Text: "hi"}}},
				func(ev provider.StreamEvent) error { evs = append(evs, ev); return nil })
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
			if err != nil && (strings.Contains(err.Error(), "sk-") || strings.Contains(err.Error(), "secret") || err.Error() != "provider: "+string(tc.wantCode)) {
				t.Errorf("error text %q is not just the code", err.Error())
			}
		})
	}
}

func TestRequestShape(t *testing.T) {
	var body map[string]any
	var auth string
	p := start(t, func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("path %s", r.URL.Path)
		}
		json.NewDecoder(r.Body).Decode(&body)
		sse(chunk(`{"content":"ok"}`, "stop"), done)(w, r)
	})
	req := provider.Request{
		Model:  "gpt-test",
		System: []string{"instructions", "skills"},
		Messages: []provider.Message{
			{Role: "user", Text: "list"},
			{Role: "assistant", Text: "", ToolCalls: []provider.ToolCall{{ID: "call_1", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)}}},
			{Role: "tool", Text: "a.txt\n", ToolCallID: "call_1", ToolName: "list_dir"},
			{Role: "assistant", Text: "one file"},
			{Role: "user", Text: "thanks"},
		},
		Tools: []provider.ToolSpec{{Name: "list_dir", Description: "list", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
	}
	if err := p.Stream(context.Background(), req, func(provider.StreamEvent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if auth != "Bearer test-key" {
		t.Errorf("Authorization = %q", auth)
	}
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options = %v; want include_usage true", body["stream_options"])
	}
	want := map[string]any{
		"model":  "gpt-test",
		"stream": true,
		"messages": []any{
			map[string]any{"role": "system", "content": "instructions\n\nskills"},
			map[string]any{"role": "user", "content": "list"},
			map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "list_dir", "arguments": `{"path":"."}`}}}},
			map[string]any{"role": "tool", "content": "a.txt\n", "tool_call_id": "call_1"},
			map[string]any{"role": "assistant", "content": "one file"},
			map[string]any{"role": "user", "content": "thanks"},
		},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{
			"name": "list_dir", "description": "list",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}},
		}}},
	}
	for k, v := range want {
		if !reflect.DeepEqual(body[k], v) {
			t.Errorf("body[%s] = %#v\nwant %#v", k, body[k], v)
		}
	}
}

// TestCancelMidStream: on either wire API, cancelling after the first
// delta ends the call with the context's error while the server still
// holds the stream open.
func TestCancelMidStream(t *testing.T) {
	first := map[string]string{
		WireChat:      chunk(`{"content":"first"}`, ""),
		WireResponses: rev("response.output_text.delta", `"item_id":"m","output_index":0,"content_index":0,"delta":"first"`),
	}
	for _, wire := range []string{WireChat, WireResponses} {
		release := make(chan struct{})
		url := startHandler(t, func(w http.ResponseWriter, r *http.Request) {
			sse(first[wire])(w, r)
			select {
			case <-r.Context().Done():
			case <-release:
			}
		})
		p := New(Config{BaseURL: url + "/v1", WireAPI: wire})
		ctx, cancel := context.WithCancel(context.Background())
		err := p.Stream(ctx, provider.Request{Model: "m"}, func(ev provider.StreamEvent) error {
			cancel() // after the first delta
			return nil
		})
		close(release)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: Stream = %v; want context.Canceled", wire, err)
		}
	}
}

func TestEmitErrorStops(t *testing.T) {
	p := start(t, sse(chunk(`{"content":"a"}`, ""), chunk(`{"content":"b"}`, "stop"), done))
	stop := errors.New("sink full")
	n := 0
	err := p.Stream(context.Background(), provider.Request{Model: "m"}, func(provider.StreamEvent) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("Stream = %v after %d events; want the emit error after 1", err, n)
	}
}

func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	var auth, org string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, org = r.Header.Get("Authorization"), r.Header.Get("OpenAI-Organization")
		sse(chunk(`{"content":"ok"}`, "stop"), done)(w, r)
	}))
	defer srv.Close()
	defer srv.Client().CloseIdleConnections()
	p := New(Config{BaseURL: srv.URL, HTTPClient: srv.Client()})
	if err := p.Stream(context.Background(), provider.Request{Model: "m"}, func(provider.StreamEvent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(auth, "sk-from-env") || org != "" {
		t.Errorf("environment leaked into request: auth %q org %q", auth, org)
	}
}

// tokenSource is an auth.Source that counts calls and answers as set.
type tokenSource struct {
	kind  auth.Kind
	token string
	err   error
	n     int
}

func (s *tokenSource) Token(ctx context.Context) (auth.Kind, string, error) {
	s.n++
	return s.kind, s.token, s.err
}

// TestCredentials: the Source's token (an API key or an OAuth access
// token) is the bearer token of each call, asked for at each call; a
// Source failure is the call's provider_unavailable and no request is made.
func TestCredentials(t *testing.T) {
	var auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auths = append(auths, r.Header.Get("Authorization"))
		sse(chunk(`{"content":"ok"}`, "stop"), done)(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(srv.Client().CloseIdleConnections)
	src := &tokenSource{kind: auth.OAuth, token: "oauth-access-1"}
	p := New(Config{BaseURL: srv.URL + "/v1", Credentials: src, HTTPClient: srv.Client()})
	req := provider.Request{Model: "m", Messages: []provider.Message{{Role: "user", Text: "hi"}}}
	nop := func(provider.StreamEvent) error { return nil }
	if err := p.Stream(context.Background(), req, nop); err != nil {
		t.Fatal(err)
	}
	src.token = "oauth-access-2" // refreshed between turns
	if err := p.Stream(context.Background(), req, nop); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Bearer oauth-access-1", "Bearer oauth-access-2"}; !reflect.DeepEqual(auths, want) || src.n != 2 {
		t.Fatalf("Authorization headers %q after %d Token calls; want %q", auths, src.n, want)
	}
	src.err = auth.Unavailable(errors.New("expired"))
	err := p.Stream(context.Background(), req, nop)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeProviderUnavailable {
		t.Fatalf("Stream with a failing Source = %v; want provider_unavailable", err)
	}
	if len(auths) != 2 {
		t.Fatalf("a request was made without a credential")
	}
}

// TestRequestOptions: max_tokens and the thinking level reach the request:
// a level as reasoning_effort (with max_tokens sent as
// max_completion_tokens, which reasoning models require), "off" and ""
// send no reasoning_effort and plain max_tokens; a zero bound sends none.
func TestRequestOptions(t *testing.T) {
	tests := []struct {
		thinking  string
		maxTokens int64
		want      map[string]any
	}{
		{"", 0, map[string]any{}},
		{"", 500, map[string]any{"max_tokens": float64(500)}},
		{"off", 500, map[string]any{"max_tokens": float64(500)}},
		{"minimal", 0, map[string]any{"reasoning_effort": "minimal"}},
		{"low", 0, map[string]any{"reasoning_effort": "low"}},
		{"medium", 700, map[string]any{"reasoning_effort": "medium", "max_completion_tokens": float64(700)}},
		{"high", 900, map[string]any{"reasoning_effort": "high", "max_completion_tokens": float64(900)}},
	}
	for _, tc := range tests {
		t.Run(tc.thinking+"/"+fmt.Sprint(tc.maxTokens), func(t *testing.T) {
			var body map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				json.NewDecoder(r.Body).Decode(&body)
				sse(chunk(`{"content":"ok"}`, "stop"), done)(w, r)
			}))
			t.Cleanup(srv.Close)
			t.Cleanup(srv.Client().CloseIdleConnections)
			p := New(Config{BaseURL: srv.URL + "/v1", APIKey: "k", MaxTokens: tc.maxTokens, HTTPClient: srv.Client()})
			req := provider.Request{Model: "m", Thinking: tc.thinking, Messages: []provider.Message{{Role: "user", Text: "hi"}}}
			if err := p.Stream(context.Background(), req, func(provider.StreamEvent) error { return nil }); err != nil {
				t.Fatal(err)
			}
			got := map[string]any{}
			for _, k := range []string{"max_tokens", "max_completion_tokens", "reasoning_effort"} {
				if v, ok := body[k]; ok {
					got[k] = v
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("request options %v; want %v", got, tc.want)
			}
		})
	}
}

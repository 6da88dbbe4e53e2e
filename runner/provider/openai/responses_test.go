package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider"
)

// rev is one Responses API stream event in OpenAI's documented SSE format:
// an event: line naming the type and a data: line whose type repeats it.
func rev(typ, fields string) string {
	data := `{"type":"` + typ + `","sequence_number":1`
	if fields != "" {
		data += "," + fields
	}
	return "event: " + typ + "\ndata: " + data + "}\n\n"
}

const respObj = `"id":"resp_1","object":"response","created_at":1,"model":"gpt-5.1-codex","output":[],"status":"%s"`

func respEvent(typ, status, extra string) string {
	r := strings.Replace(respObj, "%s", status, 1)
	if extra != "" {
		r += "," + extra
	}
	return rev(typ, `"response":{`+r+`}`)
}

var completed = respEvent("response.completed", "completed",
	`"usage":{"input_tokens":2000,"input_tokens_details":{"cached_tokens":1500},"output_tokens":300,"output_tokens_details":{"reasoning_tokens":200},"total_tokens":2300}`)

// aTurn is a response with a reasoning summary of two parts, text, and a
// function call whose arguments stream in three deltas.
var aTurn = []string{
	respEvent("response.created", "in_progress", ""),
	rev("response.output_item.added", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}`),
	rev("response.reasoning_summary_part.added", `"item_id":"rs_1","output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""}`),
	rev("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"**Plan** list "`),
	rev("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"the files"`),
	rev("response.reasoning_summary_text.done", `"item_id":"rs_1","output_index":0,"summary_index":0,"text":"**Plan** list the files"`),
	rev("response.reasoning_summary_text.done", `"item_id":"rs_1","output_index":0,"summary_index":1,"text":"then answer"`),
	rev("response.output_item.done", `"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}`),
	rev("response.output_item.added", `"output_index":1,"item":{"id":"msg_1","type":"message","role":"assistant","status":"in_progress","content":[]}`),
	rev("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Let me "`),
	rev("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"look."`),
	rev("response.output_item.added", `"output_index":2,"item":{"id":"fc_1","type":"function_call","call_id":"call_A","name":"list_dir","arguments":"","status":"in_progress"}`),
	rev("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":2,"delta":"{\"pa"`),
	rev("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":2,"delta":"th\":"`),
	rev("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":2,"delta":"\".\"}"`),
	rev("response.function_call_arguments.done", `"item_id":"fc_1","output_index":2,"arguments":"{\"path\":\".\"}"`),
	rev("response.output_item.done", `"output_index":2,"item":{"id":"fc_1","type":"function_call","call_id":"call_A","name":"list_dir","arguments":"{\"path\":\".\"}","status":"completed"}`),
	completed,
}

func renderAll(evs []provider.StreamEvent) []string {
	var out []string
	for _, ev := range evs {
		if ev.Kind == provider.ReasoningSummary {
			out = append(out, "summary:"+ev.SummaryID+":"+ev.Text)
			continue
		}
		out = append(out, render([]provider.StreamEvent{ev})...)
	}
	return out
}

func responsesProvider(t *testing.T, h http.HandlerFunc) *Provider {
	t.Helper()
	return New(Config{BaseURL: startHandler(t, h) + "/v1", APIKey: "test-key", WireAPI: WireResponses})
}

func TestResponsesStream(t *testing.T) {
	for _, tc := range []struct {
		name     string
		frames   []string
		want     []string
		wantCode protocol.Code
		reason   provider.Reason
	}{
		{"summary, text, tool call, usage", aTurn, []string{
			"summary:rs_1.0:**Plan** list the files", "summary:rs_1.1:then answer", "text:Let me ", "text:look.",
			`call:call_A:list_dir:{"path":"."}`, "usage:2000/300/1500/200", "done"}, "", 0},
		{"arguments from deltas and the item only", []string{
			rev("response.output_item.added", `"output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_A","name":"shell","arguments":""}`),
			rev("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":0,"delta":"{\"command\":"`),
			rev("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":0,"delta":"\"ls\"}"`),
			rev("response.output_item.added", `"output_index":1,"item":{"id":"fc_2","type":"function_call","call_id":"call_B","name":"read_file","arguments":""}`),
			rev("response.output_item.done", `"output_index":1,"item":{"id":"fc_2","type":"function_call","call_id":"call_B","name":"read_file","arguments":"{\"path\":\"a\"}"}`),
			respEvent("response.completed", "completed", ""),
		}, []string{`call:call_A:shell:{"command":"ls"}`, `call:call_B:read_file:{"path":"a"}`, "done"}, "", 0},
		{"incomplete keeps what came", []string{
			rev("response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"partial"`),
			respEvent("response.incomplete", "incomplete", `"incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":1,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":0},"total_tokens":6}`),
		}, []string{"text:partial", "usage:5/1/0/0", "done:max_tokens"}, "", 0},
		{"incomplete by the content filter is not the token limit", []string{
			rev("response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"partial"`),
			respEvent("response.incomplete", "incomplete", `"incomplete_details":{"reason":"content_filter"}`),
		}, []string{"text:partial", "done"}, "", 0},
		{"completed is not the token limit", []string{
			respEvent("response.completed", "completed", `"incomplete_details":{"reason":"max_output_tokens"}`),
		}, []string{"done"}, "", 0},
		{"failed", []string{
			rev("response.output_text.delta", `"item_id":"msg_1","output_index":0,"content_index":0,"delta":"x"`),
			respEvent("response.failed", "failed", `"error":{"code":"rate_limit_exceeded","message":"slow down sk-SECRETSECRET"}`),
		}, []string{"text:x"}, protocol.CodeExecutionFailed, provider.ReasonRateLimited},
		{"error event", []string{rev("error", `"code":"context_length_exceeded","message":"too long","param":null`)},
			nil, protocol.CodeExecutionFailed, provider.ReasonContextTooLong},
		{"cut before completed", []string{rev("response.output_text.delta", `"item_id":"m","output_index":0,"content_index":0,"delta":"half"`)},
			[]string{"text:half"}, protocol.CodeExecutionFailed, provider.ReasonBadResponse},
		{"no call_id", []string{
			rev("response.output_item.done", `"output_index":0,"item":{"id":"fc_1","type":"function_call","name":"list_dir","arguments":"{}"}`),
			respEvent("response.completed", "completed", ""),
		}, []string{"call:call_0:list_dir:{}", "done"}, "", 0},
		{"summary ID outside the grammar", []string{
			rev("response.reasoning_summary_text.done", `"item_id":"rs 1/x","output_index":0,"summary_index":0,"text":"thought"`),
			respEvent("response.completed", "completed", ""),
		}, []string{"summary::thought", "done"}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := responsesProvider(t, sse(tc.frames...))
			var evs []provider.StreamEvent
			err := p.Stream(context.Background(), provider.Request{Model: "gpt-5.1-codex"}, func(ev provider.StreamEvent) error { evs = append(evs, ev); return nil })
			if got := renderAll(evs); !slices.Equal(got, tc.want) {
				t.Errorf("events %q; want %q", got, tc.want)
			}
			var pe *provider.Error
			switch {
			case tc.wantCode == "" && err != nil:
				t.Fatalf("err %v", err)
			case tc.wantCode != "" && (!errors.As(err, &pe) || pe.Code != tc.wantCode || pe.Reason != tc.reason):
				t.Fatalf("err %v; want %s (%s)", err, tc.wantCode, tc.reason)
			case err != nil && strings.Contains(err.Error(), "SECRET"):
				t.Fatalf("error text leaks: %q", err)
			}
		})
	}
}

// TestResponsesBounds: more function calls than MaxToolCalls, more
// argument bytes than MaxToolArgsBytes, or more reasoning summary bytes
// than MaxSummaryBytes, fail the stream.
func TestResponsesBounds(t *testing.T) {
	var many []string
	for i := range MaxToolCalls + 1 {
		id := `"fc_` + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + `_` + strings.Repeat("1", i/26) + `"`
		many = append(many, rev("response.output_item.added", `"output_index":0,"item":{"id":`+id+`,"type":"function_call","call_id":"c","name":"n","arguments":""}`))
	}
	big := strings.Repeat("a", MaxToolArgsBytes/2+1)
	bigSummary := strings.Repeat("s", MaxSummaryBytes/2+1)
	for name, frames := range map[string][]string{
		"calls": many,
		"args": {rev("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":0,"delta":"`+big+`"`),
			rev("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":0,"delta":"`+big+`"`)},
		"summary": {rev("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"`+bigSummary+`"`),
			rev("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":1,"delta":"`+bigSummary+`"`)},
	} {
		p := responsesProvider(t, sse(append(frames, completed)...))
		err := p.Stream(context.Background(), provider.Request{Model: "m"}, func(provider.StreamEvent) error { return nil })
		if !errors.Is(err, errTooLarge) {
			t.Errorf("%s: err %v; want errTooLarge", name, err)
		}
	}
}

// TestResponsesRequest: the request a conversation with tool calls makes:
// instructions, input items in order (function_call after the assistant's
// text, function_call_output by call_id), function tools, reasoning with
// an automatic summary, max_output_tokens, store false, to /v1/responses.
func TestResponsesRequest(t *testing.T) {
	var body map[string]any
	var path string
	url := startHandler(t, func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path
		json.NewDecoder(r.Body).Decode(&body)
		sse(completed)(w, r)
	})
	p := New(Config{BaseURL: url + "/v1", APIKey: "k", WireAPI: WireResponses, MaxTokens: 1000})
	if err := p.Stream(context.Background(), conversation(), func(provider.StreamEvent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if path != "/v1/responses" {
		t.Fatalf("path %s", path)
	}
	want := map[string]any{
		"model":             "gpt-5.1-codex",
		"instructions":      "instructions\n\nskills",
		"store":             false,
		"stream":            true,
		"max_output_tokens": float64(1000),
		"reasoning":         map[string]any{"effort": "high", "summary": "auto"},
		"input": []any{
			map[string]any{"role": "user", "content": "list"},
			map[string]any{"role": "assistant", "content": "Let me look."},
			map[string]any{"type": "function_call", "call_id": "call_1", "name": "list_dir", "arguments": `{"path":"."}`},
			map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "a.txt\n"},
			map[string]any{"type": "function_call", "call_id": "call_2", "name": "read_file", "arguments": `{"path":"a.txt"}`},
			map[string]any{"type": "function_call_output", "call_id": "call_2", "output": "hello"},
			map[string]any{"role": "assistant", "content": "one file"},
			map[string]any{"role": "user", "content": "thanks"},
		},
		"tools": []any{map[string]any{"type": "function", "name": "list_dir", "description": "list", "strict": false,
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}}},
	}
	for _, m := range body["input"].([]any) {
		delete(m.(map[string]any), "type") // "message" on messages; function items checked below
	}
	for _, m := range want["input"].([]any) {
		delete(m.(map[string]any), "type")
	}
	if !reflect.DeepEqual(body, want) {
		got, _ := json.MarshalIndent(body, "", " ")
		t.Fatalf("request body:\n%s", got)
	}
}

// conversation is a stored conversation with two tool round trips.
func conversation() provider.Request {
	return provider.Request{
		Model: "gpt-5.1-codex", Thinking: "high",
		System: []string{"instructions", "skills"},
		Messages: []provider.Message{
			{Role: "user", Text: "list"},
			{Role: "assistant", Text: "Let me look.", ToolCalls: []provider.ToolCall{{ID: "call_1", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)}}},
			{Role: "tool", Text: "a.txt\n", ToolCallID: "call_1", ToolName: "list_dir"},
			{Role: "assistant", ToolCalls: []provider.ToolCall{{ID: "call_2", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)}}},
			{Role: "tool", Text: "hello", ToolCallID: "call_2", ToolName: "read_file"},
			{Role: "assistant", Text: "one file"},
			{Role: "user", Text: "thanks"},
		},
		Tools: []provider.ToolSpec{{Name: "list_dir", Description: "list", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}},
	}
}

func TestDefaultWire(t *testing.T) {
	for url, want := range map[string]string{
		"https://api.openai.com/v1": WireResponses, "https://api.openai.com/v1/": WireResponses,
		"http://127.0.0.1:8080/v1": WireChat, "https://openrouter.ai/api/v1": WireChat, "": WireChat,
	} {
		if got := DefaultWire(url); got != want {
			t.Errorf("DefaultWire(%q) = %s; want %s", url, got, want)
		}
	}
}

// TestReplayToEitherWire: a stored conversation with tool calls (as the
// runner replays it) goes to both APIs; each request carries every call
// and its result under the same call ID, and both answers stream the same
// events.
func TestReplayToEitherWire(t *testing.T) {
	answers := map[string][]string{
		WireChat:      {chunk(`{"content":"done"}`, ""), chunk(`{}`, "stop"), done},
		WireResponses: {rev("response.output_text.delta", `"item_id":"m","output_index":0,"content_index":0,"delta":"done"`), respEvent("response.completed", "completed", "")},
	}
	for _, wire := range []string{WireChat, WireResponses} {
		var raw []byte
		url := startHandler(t, func(w http.ResponseWriter, r *http.Request) {
			raw, _ = io.ReadAll(r.Body)
			sse(answers[wire]...)(w, r)
		})
		p := New(Config{BaseURL: url + "/v1", WireAPI: wire})
		var evs []provider.StreamEvent
		if err := p.Stream(context.Background(), conversation(), func(ev provider.StreamEvent) error { evs = append(evs, ev); return nil }); err != nil {
			t.Fatalf("%s: %v", wire, err)
		}
		if got := render(evs); !slices.Equal(got, []string{"text:done", "done"}) {
			t.Fatalf("%s: %q", wire, got)
		}
		for _, want := range []string{`"call_1"`, `"call_2"`, `list_dir`, `read_file`, `a.txt\n`, `"hello"`, `Let me look.`, `one file`} {
			if !strings.Contains(string(raw), want) {
				t.Errorf("%s: the request lacks %s:\n%s", wire, want, raw)
			}
		}
	}
}

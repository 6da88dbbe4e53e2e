package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// llmServer is a local model endpoint: each request gets the next scripted
// answer, in order, and is recorded (headers and body) for the test.
type llmServer struct {
	srv *httptest.Server
	// mu guards the fields below.
	mu       sync.Mutex
	answers  []http.HandlerFunc
	requests []llmRequest
}

type llmRequest struct {
	Path   string
	Header http.Header
	Body   []byte
}

func newLLMServer(t testing.TB, answers ...http.HandlerFunc) *llmServer {
	t.Helper()
	s := &llmServer{answers: answers}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *llmServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	s.mu.Lock()
	s.requests = append(s.requests, llmRequest{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var answer http.HandlerFunc
	if len(s.answers) > 0 {
		answer, s.answers = s.answers[0], s.answers[1:]
	}
	s.mu.Unlock()
	if answer == nil {
		http.Error(w, `{"error":{"message":"no scripted answer left"}}`, http.StatusInternalServerError)
		return
	}
	answer(w, r)
}

func (s *llmServer) recorded() []llmRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llmRequest(nil), s.requests...)
}

// sseAnswer streams frames, flushing after each. With cut set it then
// drops the connection without ending the chunked body: the client sees the
// stream break mid-way, as when a network path fails.
func sseAnswer(cut bool, frames ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		for _, f := range frames {
			_, _ = io.WriteString(w, f)
			w.(http.Flusher).Flush()
		}
		if !cut {
			return
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}
}

// statusAnswer answers with an HTTP error whose body quotes a secret that
// must never reach a frame. It asks for a retry without a wait
// (retry-after-ms: 0), so that a retried status costs the test no backoff.
func statusAnswer(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After-Ms", "0")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// content is what a model says in a tool-using turn: text, one tool call,
// then (in the second response) final text.
type content struct {
	before   []string
	toolName string
	toolArgs []string // the arguments JSON, in the fragments it streams in
	after    []string
}

// format renders content as one provider's SSE responses.
type format struct {
	name     string
	settings func(baseURL string) string
	// turn is the two responses of a tool-using turn; text one text-only
	// response; partial the start of a text response (for cuts).
	turn    func(c content) []http.HandlerFunc
	text    func(parts ...string) []string
	partial func(parts ...string) []string
}

const testModel = "test-model"

// OpenAI chat-completions SSE.

func oaChunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = clienttest.Quote(finish)
	}
	return `data: {"id":"chatcmpl-e2e","object":"chat.completion.chunk","created":1767225600,"model":"` + testModel +
		`","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + f + "}]}\n\n"
}

func oaText(s string) string { return oaChunk(`{"content":`+clienttest.Quote(s)+`}`, "") }

const oaDone = "data: [DONE]\n\n"

func oaPartial(parts ...string) []string {
	out := []string{oaChunk(`{"role":"assistant","content":""}`, "")}
	for _, p := range parts {
		out = append(out, oaText(p))
	}
	return out
}

func oaTextResponse(parts ...string) []string {
	return append(oaPartial(parts...), oaChunk(`{}`, "stop"), oaDone)
}

func oaTurn(c content) []http.HandlerFunc {
	first := oaPartial(c.before...)
	first = append(first, oaChunk(`{"tool_calls":[{"index":0,"id":"call_e2e1","type":"function","function":{"name":`+clienttest.Quote(c.toolName)+`,"arguments":""}}]}`, ""))
	for _, a := range c.toolArgs {
		first = append(first, oaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+clienttest.Quote(a)+`}}]}`, ""))
	}
	first = append(first, oaChunk(`{}`, "tool_calls"), oaDone)
	return []http.HandlerFunc{sseAnswer(false, first...), sseAnswer(false, oaTextResponse(c.after...)...)}
}

var openaiFormat = format{
	name: "openai",
	settings: func(baseURL string) string {
		return "provider = \"openai\"\nmodel = \"" + testModel + "\"\n\n[providers.openai]\nbase_url = " + clienttest.Quote(baseURL+"/v1") +
			"\napi_key_env = \"OPENAI_API_KEY\"\n"
	},
	turn:    oaTurn,
	text:    oaTextResponse,
	partial: oaPartial,
}

// Anthropic Messages SSE: every event has an event: line and a data: line
// whose type repeats the event name.

func anEvent(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func anStart() string {
	return anEvent("message_start", `{"type":"message_start","message":{"id":"msg_e2e","type":"message","role":"assistant","content":[],"model":"`+testModel+
		`","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`)
}

func anBlockStop(i int) string {
	return anEvent("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func anEnd(reason string) []string {
	return []string{
		anEvent("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+reason+`","stop_sequence":null},"usage":{"output_tokens":15}}`),
		anEvent("message_stop", `{"type":"message_stop"}`),
	}
}

func anPartial(parts ...string) []string {
	out := []string{anStart(),
		anEvent("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		anEvent("ping", `{"type": "ping"}`)}
	for _, p := range parts {
		out = append(out, anEvent("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+clienttest.Quote(p)+`}}`))
	}
	return out
}

func anTextResponse(parts ...string) []string {
	return append(append(anPartial(parts...), anBlockStop(0)), anEnd("end_turn")...)
}

func anTurn(c content) []http.HandlerFunc {
	first := append(anPartial(c.before...), anBlockStop(0),
		anEvent("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_e2e1","name":`+clienttest.Quote(c.toolName)+`,"input":{}}}`))
	for _, a := range c.toolArgs {
		first = append(first, anEvent("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":`+clienttest.Quote(a)+`}}`))
	}
	first = append(append(first, anBlockStop(1)), anEnd("tool_use")...)
	return []http.HandlerFunc{sseAnswer(false, first...), sseAnswer(false, anTextResponse(c.after...)...)}
}

var anthropicFormat = format{
	name: "anthropic",
	settings: func(baseURL string) string {
		return "provider = \"anthropic\"\nmodel = \"" + testModel + "\"\n\n[providers.anthropic]\nbase_url = " + clienttest.Quote(baseURL) +
			"\napi_key_env = \"ANTHROPIC_API_KEY\"\n"
	},
	turn:    anTurn,
	text:    anTextResponse,
	partial: anPartial,
}

// toolResults returns the tool results a request hands the model, from
// either format: OpenAI "tool" messages, Anthropic tool_result blocks.
func toolResults(t testing.TB, body []byte) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var out []string
	for _, m := range req.Messages {
		if m.Role == "tool" {
			var s string
			if json.Unmarshal(m.Content, &s) != nil {
				var parts []struct {
					Text string `json:"text"`
				}
				_ = json.Unmarshal(m.Content, &parts)
				for _, p := range parts {
					s += p.Text
				}
			}
			out = append(out, s)
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			var s string
			if json.Unmarshal(b.Content, &s) != nil {
				var parts []struct {
					Text string `json:"text"`
				}
				_ = json.Unmarshal(b.Content, &parts)
				var sb strings.Builder
				for _, p := range parts {
					sb.WriteString(p.Text)
				}
				s = sb.String()
			}
			out = append(out, s)
		}
	}
	return out
}

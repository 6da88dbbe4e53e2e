package agent

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider/openai"
	"github.com/magi-code/magi-code/runner/tools"
)

// TestOpenAILoop runs the full loop against an OpenAI-compatible SSE server:
// a tool call split across chunks, the tool's result sent back, then text.
func TestOpenAILoop(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		bodies = append(bodies, body)
		n := len(bodies)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		frame := func(delta, finish string) {
			io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":`+delta+`,"finish_reason":`+finish+"}]}\n\n")
			w.(http.Flusher).Flush()
		}
		if n == 1 {
			frame(`{"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"read_file","arguments":"{\"pa"}}]}`, "null")
			frame(`{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"f.txt\"}"}}]}`, "null")
			frame(`{}`, `"tool_calls"`)
		} else {
			frame(`{"content":"the file says hi"}`, "null")
			frame(`{}`, `"stop"`)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	defer srv.Client().CloseIdleConnections()

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Provider: openai.New(openai.Config{BaseURL: srv.URL, APIKey: "k", HTTPClient: srv.Client()}),
		Model:    "m",
		Tools:    tools.Builtin(tools.Options{Cwd: dir}),
		Approval: ApprovalAsk,
	}
	sink := &recorder{}
	res, err := Run(context.Background(), cfg, nil, "read f.txt", sink)
	if err != nil || res.Outcome != Completed {
		t.Fatalf("Run = %s, %v", res.Outcome, err)
	}
	want := []string{"user:read f.txt", "assistant: [call_x read_file]", "tool:hi\n <call_x read_file>", "assistant:the file says hi"}
	if got := roles(res.Messages); !reflect.DeepEqual(got, want) {
		t.Errorf("messages %q; want %q", got, want)
	}
	if len(bodies) != 2 {
		t.Fatalf("%d requests", len(bodies))
	}
	msgs, _ := json.Marshal(bodies[1]["messages"])
	if !strings.Contains(string(msgs), `{"content":"hi\n","role":"tool","tool_call_id":"call_x"}`) {
		t.Errorf("second request messages lack the tool result: %s", msgs)
	}
}

func TestNoProvider(t *testing.T) {
	res, err := Run(context.Background(), Config{}, nil, "x", &recorder{})
	if res.Outcome != Failed || CodeOf(err, "") != protocol.CodeProviderUnavailable {
		t.Errorf("Run = %s %v", res.Outcome, err)
	}
}

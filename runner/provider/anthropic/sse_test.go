package anthropic

import (
	"fmt"
	"io"
	"net/http"
)

// Real Anthropic-format SSE: every event has an event: line and a data: line
// whose type repeats the event name.

func ev(name, data string) string { return "event: " + name + "\ndata: " + data + "\n\n" }

func msgStart(model string) string {
	return ev("message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"`+model+
		`","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`)
}

func ping() string { return ev("ping", `{"type": "ping"}`) }

func textStart(i int) string {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
}

func textDelta(i int, s string) string {
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%q}}`, i, s))
}

func toolStart(i int, id, name string) string {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, i, id, name))
}

func jsonDelta(i int, partial string) string {
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%q}}`, i, partial))
}

func thinkStart(i int) string {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, i))
}

func thinkDelta(i int, s string) string {
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":%q}}`, i, s))
}

func sigDelta(i int, s string) string {
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":%q}}`, i, s))
}

func redacted(i int, data string) string {
	return ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"redacted_thinking","data":%q}}`, i, data))
}

func stop(i int) string {
	return ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func msgDelta(reason string) string {
	return ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+reason+`","stop_sequence":null},"usage":{"output_tokens":15}}`)
}

func msgStop() string { return ev("message_stop", `{"type":"message_stop"}`) }

const overloaded = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded sk-ant-SECRETSECRETSECRET"}}`

// textMessage is a whole text response.
func textMessage(model string, parts ...string) []string {
	out := []string{msgStart(model), textStart(0), ping()}
	for _, p := range parts {
		out = append(out, textDelta(0, p))
	}
	return append(out, stop(0), msgDelta("end_turn"), msgStop())
}

// sse is a handler that streams frames, flushing after each.
func sse(frames ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		for _, f := range frames {
			io.WriteString(w, f)
			w.(http.Flusher).Flush()
		}
	}
}

// status answers with an HTTP error and a body that quotes a secret.
func status(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("request-id", "req_011CTest")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

package runner

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// respEv is one Responses API stream event in OpenAI's SSE format.
func respEv(typ, fields string) string {
	return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\",\"sequence_number\":1," + fields + "}\n\n"
}

const respCompleted = `"response":{"id":"resp_e2e","object":"response","created_at":1,"model":"` + testModel +
	`","output":[],"status":"completed","usage":{"input_tokens":900,"input_tokens_details":{"cached_tokens":0},"output_tokens":40,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":940}}`

// TestResponsesAPI: serve --stdio with [providers.openai] wire_api =
// "responses" against an endpoint in OpenAI's Responses SSE format: a
// reasoning summary, text and a read_file call whose arguments stream in
// pieces, then the answer. The turn completes with the reply, the tool
// runs, its result goes back as a function_call_output item under the
// call's ID, and history shows the summary (provider_summary provenance).
func TestResponsesAPI(t *testing.T) {
	t.Parallel()
	first := []string{
		respEv("response.reasoning_summary_text.delta", `"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Reading "`),
		respEv("response.reasoning_summary_text.done", `"item_id":"rs_1","output_index":0,"summary_index":0,"text":"Reading the notes first."`),
		respEv("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Let me read "`),
		respEv("response.output_text.delta", `"item_id":"msg_1","output_index":1,"content_index":0,"delta":"the notes."`),
		respEv("response.output_item.added", `"output_index":2,"item":{"id":"fc_1","type":"function_call","call_id":"call_R1","name":"read_file","arguments":""}`),
		respEv("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":2,"delta":"{\"path\":"`),
		respEv("response.function_call_arguments.delta", `"item_id":"fc_1","output_index":2,"delta":" \"notes.txt\"}"`),
		respEv("response.function_call_arguments.done", `"item_id":"fc_1","output_index":2,"arguments":"{\"path\": \"notes.txt\"}"`),
		respEv("response.completed", respCompleted),
	}
	second := []string{
		respEv("response.output_text.delta", `"item_id":"msg_2","output_index":0,"content_index":0,"delta":"The notes say "`),
		respEv("response.output_text.delta", `"item_id":"msg_2","output_index":0,"content_index":0,"delta":"hello."`),
		respEv("response.completed", respCompleted),
	}
	llm := newLLMServer(t, sseAnswer(false, first...), sseAnswer(false, second...))
	settings := openaiFormat.settings(llm.srv.URL) + "wire_api = \"responses\"\n"
	ws := clienttest.NewWorkspace(t, settings)
	ws.WriteFile(t, filepath.Join(ws.Cwd, "notes.txt"), notesText)
	ch := startChild(t, ws, client.Options{Env: append(ws.Env(), "OPENAI_API_KEY=sk-test-KEY0123456789abcdef")})
	sid := ch.Create().SessionID
	r := ch.Turn(sid, "read the notes")
	r.WantOutcome(t, "completed", "")
	if got, want := r.Reply(), "Let me read the notes.The notes say hello."; got != want {
		t.Fatalf("reply %q; want %q", got, want)
	}
	reqs := llm.recorded()
	if len(reqs) != 2 || reqs[0].Path != "/v1/responses" || reqs[1].Path != "/v1/responses" {
		t.Fatalf("%d requests to %v; want 2 to /v1/responses", len(reqs), reqs)
	}
	second1 := string(reqs[1].Body)
	for _, want := range []string{`"type":"function_call_output"`, `"call_id":"call_R1"`, "hello from the notes", `"type":"function_call"`} {
		if !strings.Contains(second1, want) {
			t.Fatalf("the second request lacks %s:\n%s", want, second1)
		}
	}
	var summaries []string
	for _, e := range ch.history(sid, r) {
		if e.Kind == "reasoning_summary" {
			summaries = append(summaries, e.Text)
		}
	}
	if len(summaries) != 1 || summaries[0] != "Reading the notes first." {
		t.Fatalf("history summaries %q; want the provider's one", summaries)
	}
	ch.Shutdown()
}

package runner

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// TestNamedProviders runs turns through serve --stdio against named
// providers configured side by side in one settings file: the llamacpp
// preset, its base_url overridden by its table (a key-less local server),
// and a named OpenAI-compatible provider with a key of its own. The
// key-less one gets no Authorization header (though OPENAI_API_KEY is set)
// and its static and environment headers; the other server is never
// asked. Then a child selecting the named one sends its key there only.
func TestNamedProviders(t *testing.T) {
	t.Parallel()
	const remoteKey = "sk-test-vllmKEY0123456789abcdef"
	local := newLLMServer(t, oaTurn(equivalent)...)
	remote := newLLMServer(t, sseAnswer(false, oaTextResponse("from ", "vllm")...))
	settings := func(selected string) string {
		return "provider = \"" + selected + "\"\nmodel = \"" + testModel + "\"\n\n" +
			"[providers.llamacpp]\nbase_url = " + clienttest.Quote(local.srv.URL+"/v1") + "\n" +
			"headers = { X-Static = \"static-value\" }\nenv_headers = { X-From-Env = \"LOCAL_HEADER\" }\n\n" +
			"[providers.vllm]\nkind = \"openai\"\nwire_api = \"chat\"\nbase_url = " + clienttest.Quote(remote.srv.URL+"/v1") + "\napi_key_env = \"VLLM_KEY\"\n"
	}

	ws := clienttest.NewWorkspace(t, settings("llamacpp"))
	ws.WriteFile(t, filepath.Join(ws.Cwd, "notes.txt"), notesText)
	env := append(ws.Env(), "OPENAI_API_KEY=sk-test-openaiKEY0123456789abcdef", "LOCAL_HEADER=env-value")
	ch := startChild(t, ws, client.Options{Env: env})
	sid := ch.Create().SessionID
	if n := len(local.recorded()); n != 0 {
		t.Fatalf("initialize made %d requests to the provider; readiness is local", n)
	}
	r := ch.Turn(sid, "read the notes")
	r.WantOutcome(t, "completed", "")
	if got, want := r.Reply(), "Let me read the notes.The notes say hello."; got != want {
		t.Fatalf("reply %q; want %q", got, want)
	}
	reqs := local.recorded()
	if len(reqs) != 2 {
		t.Fatalf("%d requests to the local server; want 2 (the tool round trip)", len(reqs))
	}
	for i, req := range reqs {
		if req.Path != "/v1/chat/completions" {
			t.Fatalf("request %d: path %q", i, req.Path)
		}
		if a, ok := req.Header["Authorization"]; ok {
			t.Fatalf("request %d to a key-less provider carries Authorization %q", i, a)
		}
		if req.Header.Get("X-Static") != "static-value" || req.Header.Get("X-From-Env") != "env-value" {
			t.Fatalf("request %d: configured headers missing: %v", i, req.Header)
		}
	}
	if res := toolResults(t, reqs[1].Body); len(res) != 1 || !strings.Contains(res[0], notesText) {
		t.Fatalf("tool results in the second request: %q", res)
	}
	if n := len(remote.recorded()); n != 0 {
		t.Fatalf("the provider not selected got %d requests", n)
	}
	ch.Shutdown()

	// The other provider of the same file, selected.
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), settings("vllm"))
	ch = startChild(t, ws, client.Options{Env: append(ws.Env(), "VLLM_KEY="+remoteKey, "LOCAL_HEADER=env-value")})
	sid = ch.Create().SessionID
	r = ch.Turn(sid, "hello")
	r.WantOutcome(t, "completed", "")
	if got := r.Reply(); got != "from vllm" {
		t.Fatalf("reply %q", got)
	}
	rreqs := remote.recorded()
	if len(rreqs) != 1 || rreqs[0].Header.Get("Authorization") != "Bearer "+remoteKey {
		t.Fatalf("the named provider's key was not sent: %d requests", len(rreqs))
	}
	if rreqs[0].Header.Get("X-Static") != "" {
		t.Fatal("one provider's headers reached another")
	}
	if n := len(local.recorded()); n != 2 {
		t.Fatalf("the local server got %d requests; want still 2", n)
	}
}

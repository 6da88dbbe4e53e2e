package runner

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/runner/provider/providertest"
)

// TestKeptAliveConnectionDropped: serve --stdio with each real provider
// against a server that reads the second request on every connection and
// closes it without an answer (llama.cpp's server does so after a streamed
// reply). The request after each tool call goes out on such a connection;
// every tool round trip completes all the same.
func TestKeptAliveConnectionDropped(t *testing.T) {
	t.Parallel()
	for _, f := range []format{openaiFormat, anthropicFormat} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			const turns = 3
			var answers []http.HandlerFunc
			for range turns {
				answers = append(answers, f.turn(equivalent)...)
			}
			llm := &llmServer{answers: answers}
			srv := providertest.NewDropServer(t, http.HandlerFunc(llm.serve))
			ws := clienttest.NewWorkspace(t, f.settings(srv.URL))
			ws.WriteFile(t, filepath.Join(ws.Cwd, "notes.txt"), notesText)
			env := append(ws.Env(), "OPENAI_API_KEY=sk-test-KEY0123456789abcdef", "ANTHROPIC_API_KEY=sk-test-KEY0123456789abcdef")
			ch := startChild(t, ws, client.Options{Env: env})
			sid := ch.Create().SessionID
			for i := range turns {
				r := ch.Turn(sid, "read the notes")
				r.WantOutcome(t, "completed", "")
				if got, want := r.Reply(), "Let me read the notes.The notes say hello."; got != want {
					t.Fatalf("turn %d: reply %q; want %q", i, got, want)
				}
			}
			ch.Shutdown()
			if d, s := srv.Dropped.Load(), srv.Served.Load(); d < turns || s != 2*turns {
				t.Fatalf("%d requests dropped and %d served; want at least %d dropped and %d served", d, s, turns, 2*turns)
			}
		})
	}
}

package runner

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// copyStored copies session id's file to newID (its records renamed), with
// each edit pair (old, new) applied to the bytes; every old must occur.
func copyStored(t *testing.T, home, id, newID string, edits ...string) {
	t.Helper()
	b, err := os.ReadFile(clienttest.SessionFile(home, id))
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(id), []byte(newID))
	for i := 0; i+1 < len(edits); i += 2 {
		if !bytes.Contains(b, []byte(edits[i])) {
			t.Fatalf("session file of %s lacks %q", id, edits[i])
		}
		b = bytes.ReplaceAll(b, []byte(edits[i]), []byte(edits[i+1]))
	}
	if err := os.WriteFile(clienttest.SessionFile(home, newID), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestThinkingRestored: session.open restores the saved thinking level with
// the selection (it used to restore only the model), as the turns' requests
// show (reasoning_effort of the OpenAI-compatible provider):
//   - a saved level other than the startup one is restored, with
//     saved_selection_notice;
//   - a session saved under another provider keeps the startup provider and
//     model but the saved thinking ("retains startup selection and saved
//     requested thinking"), with saved_selection_unavailable;
//   - a saved level this build does not know keeps the startup level, with
//     saved_selection_unavailable;
//   - the same level as at startup: no notice.
func TestThinkingRestored(t *testing.T) {
	t.Parallel()
	llm := newLLMServer(t,
		sseAnswer(false, oaTextResponse("one")...), sseAnswer(false, oaTextResponse("two")...),
		sseAnswer(false, oaTextResponse("three")...), sseAnswer(false, oaTextResponse("four")...),
		sseAnswer(false, oaTextResponse("five")...))
	settings := strings.Replace(openaiFormat.settings(llm.srv.URL), "[providers.openai]", "thinking = \"low\"\n[providers.openai]", 1)
	ws := clienttest.NewWorkspace(t, settings)
	opts := client.Options{Env: append(ws.Env(), "OPENAI_API_KEY=sk-test-restore")}

	ch := startChild(t, ws, opts)
	id := ch.Create().SessionID
	if r := ch.Turn(id, "first"); r.Finished.Persistence != "durable" {
		t.Fatalf("run.finished %s", r.Terminal())
	}
	ch.Shutdown()
	copyStored(t, ws.Home, id, "thinking-high", `"thinking":"low"`, `"thinking":"high"`)
	copyStored(t, ws.Home, id, "other-provider", `"thinking":"low"`, `"thinking":"high"`, `"provider":"openai"`, `"provider":"anthropic"`)
	copyStored(t, ws.Home, id, "thinking-unknown", `"thinking":"low"`, `"thinking":"xhigh"`)

	ch = startChild(t, ws, opts)
	for i, tc := range []struct {
		id, notice, effort string
	}{
		{"thinking-high", "saved_selection_notice", "high"},
		{"other-provider", "saved_selection_unavailable", "high"},
		{"thinking-unknown", "saved_selection_unavailable", "low"},
		{id, "", "low"},
	} {
		o := ch.Open(tc.id)
		if tc.notice == "" && len(o.Notices) != 0 || tc.notice != "" && !slices.Equal(o.Notices, []string{tc.notice}) {
			t.Errorf("%s: notices %v; want [%s]", tc.id, o.Notices, tc.notice)
		}
		if st := ch.Status(); st.Provider == nil || *st.Provider != "openai" || st.Model == nil || *st.Model != testModel {
			t.Errorf("%s: status %+v; want the startup provider and model", tc.id, st)
		}
		ch.Turn(tc.id, "again").WantOutcome(t, "completed", "")
		reqs := llm.recorded()
		if len(reqs) != i+2 {
			t.Fatalf("%d requests", len(reqs))
		}
		var body struct {
			Effort string `json:"reasoning_effort"`
		}
		if err := json.Unmarshal(reqs[i+1].Body, &body); err != nil {
			t.Fatal(err)
		}
		if body.Effort != tc.effort {
			t.Errorf("%s: the turn asked reasoning_effort %q; want %q", tc.id, body.Effort, tc.effort)
		}
	}
	ch.Shutdown()
}

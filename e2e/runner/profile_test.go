package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// offeredTools lists the tool names of an OpenAI chat-completions request.
func offeredTools(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range req.Tools {
		names = append(names, tool.Function.Name)
	}
	slices.Sort(names)
	return names
}

// TestPrimaryProfileTools: the primary agent profile's tools list (it used
// to be read and ignored) is exactly what the model is offered, the task
// tool included only when listed; a subagent is granted tools from that
// set only, and the ceiling the session records for it is what it was
// offered.
func TestPrimaryProfileTools(t *testing.T) {
	t.Parallel()
	profiles := map[string]string{
		"helper.md": "---\ndescription: Looks things up\nmode: subagent\n---\nYou help.\n",
	}
	t.Run("listed tools only", func(t *testing.T) {
		t.Parallel()
		llm := newLLMServer(t, sseAnswer(false, oaTextResponse("done")...))
		ws := profileWorkspace(t, llm.srv.URL, "[list_dir, grep]", profiles)
		ch := startChild(t, ws, client.Options{Env: append(ws.Env(), "OPENAI_API_KEY=sk-test-profile")})
		ch.Turn(ch.Create().SessionID, "hi").WantOutcome(t, "completed", "")
		reqs := llm.recorded()
		if got := offeredTools(t, reqs[0].Body); !slices.Equal(got, []string{"grep", "list_dir"}) {
			t.Fatalf("tools offered %v; want exactly [grep list_dir]", got)
		}
		ch.Shutdown()
	})
	t.Run("task listed: the subagent's grant and ceiling come from the profile's tools", func(t *testing.T) {
		t.Parallel()
		llm := newLLMServer(t,
			sseAnswer(false, oaChunk(`{"role":"assistant","content":""}`, ""),
				oaChunk(`{"tool_calls":[{"index":0,"id":"call_t1","type":"function","function":{"name":"task","arguments":`+
					clienttest.Quote(`{"profile":"helper","prompt":"look around"}`)+`}}]}`, ""),
				oaChunk(`{}`, "tool_calls"), oaDone),
			sseAnswer(false, oaTextResponse("helper done")...),
			sseAnswer(false, oaTextResponse("all done")...))
		ws := profileWorkspace(t, llm.srv.URL, "[read_file, task]", profiles)
		ch := startChild(t, ws, client.Options{Env: append(ws.Env(), "OPENAI_API_KEY=sk-test-profile")})
		sid := ch.Create().SessionID
		ch.Turn(sid, "delegate").WantOutcome(t, "completed", "")
		reqs := llm.recorded()
		if len(reqs) != 3 {
			t.Fatalf("%d model requests; want 3", len(reqs))
		}
		if got := offeredTools(t, reqs[0].Body); !slices.Equal(got, []string{"read_file", "task"}) {
			t.Fatalf("primary tools offered %v; want exactly [read_file task]", got)
		}
		if got := offeredTools(t, reqs[1].Body); !slices.Equal(got, []string{"read_file"}) {
			t.Fatalf("subagent tools offered %v; want [read_file]", got)
		}
		ch.Shutdown()
		b, err := os.ReadFile(clienttest.SessionFile(ws.Home, sid))
		if err != nil {
			t.Fatal(err)
		}
		var ceilings []string
		for _, line := range strings.Split(string(b), "\n") {
			var rec struct {
				Type    string `json:"type"`
				Ceiling string `json:"ceiling"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Type == "task_scope" {
				ceilings = append(ceilings, rec.Ceiling)
			}
		}
		if want := `{"profile":"helper","tools":["read_file"]}`; len(ceilings) != 1 || ceilings[0] != want {
			t.Fatalf("stored ceilings %q; want [%s]", ceilings, want)
		}
	})
}

// profileWorkspace selects the OpenAI-compatible provider at llm and the
// primary profile "lead" with the given tools list (YAML flow list), beside
// the other profiles.
func profileWorkspace(t *testing.T, llm, tools string, profiles map[string]string) *clienttest.Workspace {
	t.Helper()
	ws := clienttest.NewWorkspace(t, strings.Replace(openaiFormat.settings(llm), "[providers.openai]",
		"agent = \"lead\"\n\n[tools]\napproval = \"auto\"\n\n[providers.openai]", 1))
	ws.WriteFile(t, filepath.Join(ws.Home, "agents", "lead.md"), "---\ndescription: Leads\nmode: primary\ntools: "+tools+"\n---\nYou lead.\n")
	for name, content := range profiles {
		ws.WriteFile(t, filepath.Join(ws.Home, "agents", name), content)
	}
	return ws
}

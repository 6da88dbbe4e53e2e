package runner

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// TestSystemContextReachesModel: the instruction files, the primary agent
// profile and the enabled skills reach the model as its system context, in
// the order docs/configuration.md gives (global AGENTS.md, project AGENTS.md, listed
// instruction files, the profile's prompt, then the skills with their names
// and descriptions only: their bodies load with the skill tool), through
// both real providers: what the test endpoint receives is what a real
// model would. A disabled skill stays out, and the user's prompt is not
// system text.
func TestSystemContextReachesModel(t *testing.T) {
	t.Parallel()
	for _, f := range []format{openaiFormat, anthropicFormat} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			llm := newLLMServer(t, sseAnswer(false, f.text("noted")...))
			ws := clienttest.NewWorkspace(t, "")
			extra := filepath.Join(ws.Home, "extra.md")
			// Top-level keys first: f.settings ends inside its provider table.
			ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), "instructions = ["+clienttest.Quote(extra)+"]\nagent = \"lead\"\n"+
				f.settings(llm.srv.URL)+"\n[skills]\ndisabled = [\"retired\"]\n")
			ws.WriteFile(t, filepath.Join(ws.Home, "AGENTS.md"), "GLOBAL-AGENTS-7f3a\n")
			ws.WriteFile(t, filepath.Join(ws.Cwd, "AGENTS.md"), "PROJECT-AGENTS-2b9c\n")
			ws.WriteFile(t, extra, "LISTED-INSTRUCTIONS-5d1e\n")
			ws.WriteFile(t, filepath.Join(ws.Home, "agents", "lead.md"),
				"---\ndescription: Leads the work\nmode: primary\n---\nPRIMARY-PROFILE-9c4b\n")
			ws.WriteFile(t, filepath.Join(ws.Home, "skills", "deploy", "SKILL.md"),
				"---\ndescription: Ships a release\n---\nGLOBAL-SKILL-BODY-3a8f\n")
			ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "skills", "lint", "SKILL.md"),
				"---\ndescription: Checks style\n---\nPROJECT-SKILL-BODY-6e2d\n")
			ws.WriteFile(t, filepath.Join(ws.Home, "skills", "retired", "SKILL.md"), "RETIRED-SKILL-BODY-0b7c\n")

			env := append(ws.Env(), "OPENAI_API_KEY=sk-test-context", "ANTHROPIC_API_KEY=sk-test-context")
			ch := startChild(t, ws, client.Options{Env: env})
			sid := ch.Create().SessionID
			ch.Turn(sid, "USER-PROMPT-1c5a").WantOutcome(t, "completed", "")
			ch.Shutdown()

			reqs := llm.recorded()
			if len(reqs) != 1 {
				t.Fatalf("%d provider requests; want 1", len(reqs))
			}
			system := systemText(t, f.name, reqs[0].Body)
			last := -1
			for _, want := range []string{
				"GLOBAL-AGENTS-7f3a", "PROJECT-AGENTS-2b9c", "LISTED-INSTRUCTIONS-5d1e", "PRIMARY-PROFILE-9c4b",
				"deploy", "Ships a release",
				"lint", "Checks style",
			} {
				i := strings.Index(system, want)
				if i < 0 {
					t.Fatalf("system context lacks %q:\n%s", want, system)
				}
				if i < last {
					t.Fatalf("%q comes out of order in the system context:\n%s", want, system)
				}
				last = i
			}
			for _, absent := range []string{"RETIRED-SKILL-BODY-0b7c", "USER-PROMPT-1c5a", "GLOBAL-SKILL-BODY-3a8f", "PROJECT-SKILL-BODY-6e2d"} {
				if strings.Contains(system, absent) {
					t.Fatalf("system context holds %q:\n%s", absent, system)
				}
			}
		})
	}
}

// systemText is the system context of one provider request body: the
// system messages of a chat-completions request, or the system blocks of
// an Anthropic Messages request.
func systemText(t *testing.T, format string, body []byte) string {
	t.Helper()
	var parts []string
	switch format {
	case "openai":
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		for _, m := range req.Messages {
			if m.Role == "system" {
				parts = append(parts, contentText(t, m.Content))
			}
		}
	case "anthropic":
		var req struct {
			System json.RawMessage `json:"system"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, contentText(t, req.System))
	}
	return strings.Join(parts, "\n")
}

// contentText is the text of a content value: a string, or a list of
// blocks with a text member.
func contentText(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		t.Fatalf("content %s: %v", raw, err)
	}
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
		b.WriteString("\n")
	}
	return b.String()
}

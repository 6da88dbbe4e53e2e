package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
)

// TestSkillsLoadProgressively: a skill written as Claude Code writes it
// (folded description, metadata, license, allowed-tools) under
// .claude/skills loads; the model is told its name and description, never
// its body, until it calls the skill tool, whose result hands it the body.
// A broken skill beside it does not stop the child.
func TestSkillsLoadProgressively(t *testing.T) {
	t.Parallel()
	for _, f := range []format{openaiFormat, anthropicFormat} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			llm := newLLMServer(t, f.turn(content{toolName: "skill", toolArgs: []string{`{"name":"pdf"}`}, after: []string{"done"}})...)
			ws := clienttest.NewWorkspace(t, f.settings(llm.srv.URL))
			ws.WriteFile(t, filepath.Join(ws.Cwd, ".claude", "skills", "pdf", "SKILL.md"), "---\nname: pdf\ndescription: >-\n  Reads PDF\n  files.\nlicense: MIT\n"+
				"allowed-tools: Read Bash\nmetadata:\n  version: \"2\"\n---\nPDF-SKILL-BODY-81c3\n")
			ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "skills", "broken", "SKILL.md"), "---\ndescription: [oops\n---\nBROKEN-BODY\n")
			env := append(ws.Env(), "OPENAI_API_KEY=sk-test-skills", "ANTHROPIC_API_KEY=sk-test-skills")
			ch := startChild(t, ws, client.Options{Env: env})
			sid := ch.Create().SessionID
			ch.Turn(sid, "read the pdf").WantOutcome(t, "completed", "")
			ch.Shutdown()

			reqs := llm.recorded()
			if len(reqs) != 2 {
				t.Fatalf("%d provider requests; want 2", len(reqs))
			}
			first := string(reqs[0].Body)
			system := systemText(t, f.name, reqs[0].Body)
			if !strings.Contains(system, "pdf: Reads PDF files.") || strings.Contains(system, "broken") {
				t.Errorf("system context:\n%s\nwant the pdf skill's name and description, not the broken one", system)
			}
			if strings.Contains(first, "PDF-SKILL-BODY-81c3") || !strings.Contains(first, `"skill"`) {
				t.Errorf("first request holds the skill's body, or offers no skill tool")
			}
			results := toolResults(t, reqs[1].Body)
			if len(results) != 1 || !strings.Contains(results[0], "PDF-SKILL-BODY-81c3") || strings.Contains(results[0], "allowed-tools") {
				t.Errorf("skill tool results %q; want the body without its front matter", results)
			}
		})
	}
}

// TestRepositoryDocumentsKeepSecrets: a cloned repository's skills, agent
// profiles, AGENTS.md and instruction settings that lead (by symlink or
// path) to the agent's own environment, to a credential file or to a file
// outside the workspace never put their contents in front of the model:
// not in the system context, not through the skill tool; the child starts
// all the same, and its diagnostic log names the refused file. The
// canaries live outside the temp directory; the fake key is the child's
// own, which /proc/self/environ would hand over.
func TestRepositoryDocumentsKeepSecrets(t *testing.T) {
	t.Parallel()
	outside := ostest.OutsideTemp(t)
	const fileCanary = "OUTSIDE-CANARY-2c9e"
	secretKey := "sk-test-ENVIRON-CANARY-5b1f"
	write := func(p, text string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	doc := "---\ndescription: " + fileCanary + "\n---\n" + fileCanary + "\n"
	write(filepath.Join(outside, "notes.md"), doc)
	write(filepath.Join(outside, ".aws", "credentials"), "[default]\naws_secret_access_key = "+fileCanary+"\n")
	write(filepath.Join(outside, "skills", "x", "SKILL.md"), doc)
	for _, tc := range []struct {
		name     string
		link, to string // a link the repository commits, below the cwd
		project  string // project settings
		skill    string // the skill the model asks for
		logNames string
	}{
		{name: "skill to environ", link: ".magi-code/skills/k/SKILL.md", to: "/proc/self/environ", skill: "k", logNames: "k/SKILL.md"},
		{name: "skill to environ by ..", link: ".magi-code/skills/k/SKILL.md", to: "/proc/self/../self/./environ", skill: "k", logNames: "k/SKILL.md"},
		{name: "skill to credentials", link: ".magi-code/skills/k/SKILL.md", to: filepath.Join(outside, ".aws", "credentials"), skill: "k", logNames: "k/SKILL.md"},
		{name: "claude skill directory outside", link: ".claude/skills/x", to: filepath.Join(outside, "skills", "x"), skill: "x", logNames: "x/SKILL.md"},
		{name: "profile outside", link: ".magi-code/agents/x.md", to: filepath.Join(outside, "notes.md"), skill: "x", logNames: "agents/x.md"},
		{name: "AGENTS.md outside", link: "AGENTS.md", to: filepath.Join(outside, "notes.md"), skill: "x", logNames: "AGENTS.md"},
		{name: "AGENTS.md to environ", link: "AGENTS.md", to: "/proc/self/environ", skill: "x", logNames: "AGENTS.md"},
		{name: "listed instructions outside", project: "instructions = [" + clienttest.Quote(filepath.Join(outside, "notes.md")) + "]\n", skill: "x", logNames: "notes.md"},
		{name: "listed instructions by ..", project: "instructions = [\"../../../../../../../../../../../../../.." + filepath.Join(outside, "notes.md") + "\"]\n", skill: "x", logNames: "notes.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			llm := newLLMServer(t,
				sseAnswer(false, oaChunk(`{"role":"assistant","content":""}`, ""),
					oaChunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"skill","arguments":`+clienttest.Quote(`{"name":"`+tc.skill+`"}`)+`}},`+
						`{"index":1,"id":"call_2","type":"function","function":{"name":"skill","arguments":"{\"name\":\"good\"}"}}]}`, ""),
					oaChunk(`{}`, "tool_calls"), oaDone),
				sseAnswer(false, oaTextResponse("done")...))
			ws := clienttest.NewWorkspace(t, openaiFormat.settings(llm.srv.URL))
			if tc.project != "" {
				ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"), tc.project)
			}
			ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "skills", "good", "SKILL.md"), "---\ndescription: fine\n---\nGOOD-BODY-6d0a\n")
			if tc.link != "" {
				p := filepath.Join(ws.Cwd, tc.link)
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(tc.to, p); err != nil {
					t.Fatal(err)
				}
			}
			ch := startChild(t, ws, client.Options{Env: append(ws.Env(), "OPENAI_API_KEY="+secretKey)})
			sid := ch.Create().SessionID
			ch.Turn(sid, "load the skills").WantOutcome(t, "completed", "")
			ch.Shutdown()

			reqs := llm.recorded()
			if len(reqs) != 2 {
				t.Fatalf("%d provider requests; want 2", len(reqs))
			}
			for i, r := range reqs {
				for _, secret := range []string{fileCanary, secretKey, "PATH="} {
					if strings.Contains(string(r.Body), secret) {
						t.Fatalf("request %d holds %q", i, secret)
					}
				}
			}
			results := toolResults(t, reqs[1].Body)
			if len(results) != 2 || !strings.Contains(results[0], "no skill has that name") || !strings.Contains(results[1], "GOOD-BODY-6d0a") {
				t.Errorf("skill results %q; want %s unknown (refused at start-up) and good loaded", results, tc.skill)
			}
			logs, _ := filepath.Glob(filepath.Join(ws.Home, "logs", "serve-*.log"))
			var log strings.Builder
			for _, p := range logs {
				log.WriteString(readFile(t, p))
			}
			if !strings.Contains(log.String(), tc.logNames) || !strings.Contains(log.String(), "resolves") {
				t.Errorf("the diagnostic log does not name %s and the reason:\n%s", tc.logNames, log.String())
			}
		})
	}
}

// TestNestedAgentsReachModel: started in a subdirectory of a repository,
// the child reads the AGENTS.md files from the repository root down to the
// cwd, in that order, and none above the root.
func TestNestedAgentsReachModel(t *testing.T) {
	t.Parallel()
	llm := newLLMServer(t, sseAnswer(false, openaiFormat.text("noted")...))
	ws := clienttest.NewWorkspace(t, "")
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), openaiFormat.settings(llm.srv.URL))
	repo := filepath.Dir(ws.Cwd)
	above := filepath.Dir(repo)
	ws.WriteFile(t, filepath.Join(above, "AGENTS.md"), "ABOVE-ROOT-AGENTS-0d4e\n")
	ws.WriteFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	ws.WriteFile(t, filepath.Join(repo, "AGENTS.md"), "ROOT-AGENTS-7a2c\n")
	ws.WriteFile(t, filepath.Join(ws.Cwd, "AGENTS.md"), "CWD-AGENTS-3f9b\n")
	t.Cleanup(func() { os.Remove(filepath.Join(above, "AGENTS.md")) })
	ch := startChild(t, ws, client.Options{Env: append(ws.Env(), "OPENAI_API_KEY=sk-test-nested")})
	sid := ch.Create().SessionID
	ch.Turn(sid, "hello").WantOutcome(t, "completed", "")
	ch.Shutdown()
	reqs := llm.recorded()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	system := systemText(t, "openai", reqs[0].Body)
	root, cwd := strings.Index(system, "ROOT-AGENTS-7a2c"), strings.Index(system, "CWD-AGENTS-3f9b")
	if root < 0 || cwd < root || strings.Contains(system, "ABOVE-ROOT-AGENTS-0d4e") {
		t.Errorf("system context:\n%s\nwant the root's AGENTS.md, then the cwd's, none above the root", system)
	}
}

package runner

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/tools"
)

// readScene is a scratch root outside /tmp and TMPDIR (the OS sandbox makes
// those writable, and a canary there proves nothing) holding a person's
// home with credential stores, MC_HOME reached through a link, a
// workspace with links out of it, a sibling whose name starts with the
// workspace's, and a file outside hard-linked into the workspace.
type readScene struct {
	root, home, ws string
	key            string   // the provider key in the child's environment
	secrets        []string // canaries no model request may carry
	outsideCanary  string   // in outside/notes.txt: read only once allowed
	store          string   // the file outside that linked.txt names too
}

func newReadScene(t *testing.T) *readScene {
	t.Helper()
	base := "/var/tmp"
	if tmp, _ := filepath.EvalSymlinks(os.TempDir()); tmp == base || strings.HasPrefix(tmp, base+"/") {
		t.Skip("TMPDIR lies in /var/tmp: no scratch root outside it")
	}
	root, err := os.MkdirTemp(base, "magi-e2e-reads-")
	if err != nil {
		t.Skipf("no scratch root outside the temp directory: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	nonce := fmt.Sprintf("%d", time.Now().UnixNano())
	s := &readScene{root: root, home: filepath.Join(root, "home"), ws: filepath.Join(root, "proj"),
		key: "sk-test-" + nonce + "READSKEY", outsideCanary: "OUTSIDE-CANARY-" + nonce, store: filepath.Join(root, "store", "pkg.js")}
	files := map[string]string{
		"proj/inside.txt":                   "INSIDE-CANARY-" + nonce + "\n",
		"proj-old/notes.txt":                "OLD-CANARY-" + nonce + "\n",
		"outside/notes.txt":                 s.outsideCanary + "\n",
		"home/.cargo/credentials.toml":      "token = \"CARGO-CANARY-" + nonce + "\"\n",
		"home/.config/hub":                  "oauth_token: HUB-CANARY-" + nonce + "\n",
		"home/.azure/msal_token_cache.json": "AZURE-CANARY-" + nonce + "\n",
		"home/.magi-code/notes.md":          "MCHOME-CANARY-" + nonce + "\n",
		"store/pkg.js":                      "STORE-ORIGINAL\n",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"proj-old/notes.txt", "home/.cargo/credentials.toml", "home/.config/hub", "home/.azure/msal_token_cache.json", "home/.magi-code/notes.md"} {
		data, _ := os.ReadFile(filepath.Join(root, name))
		s.secrets = append(s.secrets, strings.TrimSpace(string(data)))
	}
	s.secrets = append(s.secrets, nonce+"READSKEY")
	links := map[string]string{
		"proj/env":     "/proc/self/environ",
		"proj/procdir": "/proc/self",
		"proj/outlink": "../outside/notes.txt",
		"proj/outdir":  "../outside",
		"proj/cargo":   "../home/.cargo/credentials.toml",
		"proj/azure":   "../home/.azure",
		"mclink":       "home/.magi-code",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(s.store, filepath.Join(s.ws, "linked.js")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	return s
}

// start starts a child in the workspace with settings (global, in MC_HOME,
// which is the link mclink), the provider key in its environment.
func (s *readScene) start(t *testing.T, settings string) *child {
	t.Helper()
	ws := &clienttest.Workspace{Home: filepath.Join(s.root, "mclink"), Cwd: s.ws}
	ws.WriteFile(t, filepath.Join(s.home, ".magi-code", "settings.toml"), settings)
	env := []string{"MC_HOME=" + ws.Home, "HOME=" + s.home, "PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=" + s.key}
	return startChild(t, ws, client.Options{Env: env})
}

// oaCall is an OpenAI-compatible answer that calls one tool.
func oaCall(id, name string, args map[string]any) http.HandlerFunc {
	b, _ := json.Marshal(args)
	return sseAnswer(false, oaChunk(`{"role":"assistant","content":""}`, ""),
		oaChunk(`{"tool_calls":[{"index":0,"id":`+clienttest.Quote(id)+`,"type":"function","function":{"name":`+clienttest.Quote(name)+`,"arguments":`+clienttest.Quote(string(b))+`}}]}`, ""),
		oaChunk(`{}`, "tool_calls"), oaDone)
}

// lastToolResult is the content of the last message of a recorded
// chat-completions request: the result of the tool call before it.
func lastToolResult(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		t.Fatalf("request body: %v", err)
	}
	m := req.Messages[len(req.Messages)-1]
	if m.Role != "tool" {
		t.Fatalf("last message is %q, not a tool result", m.Role)
	}
	var text string
	if json.Unmarshal(m.Content, &text) == nil {
		return text
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	for _, p := range parts {
		text += p.Text
	}
	return text
}

// noSecrets fails if any model request carries a secret of the scene.
func (s *readScene) noSecrets(t *testing.T, reqs []llmRequest, except string) {
	t.Helper()
	for i, r := range reqs {
		for _, secret := range append(s.secrets, s.outsideCanary) {
			if secret != except && strings.Contains(string(r.Body), secret) {
				t.Errorf("model request %d carries %s", i, secret[:min(len(secret), 14)])
			}
		}
	}
}

type readCall struct {
	tool string
	args map[string]any
	want string // the tool result the model must be sent (exact)
}

// TestReadBoundaryAuto: under approval = "auto", through serve --stdio with
// an OpenAI-compatible endpoint that records what the model is sent, every
// read of the agent's /proc entries (any spelling), of a file or directory
// outside the workspace (a link, a sibling named like the workspace, ..),
// of a credential store or MC_HOME (reached through a link) is refused with
// its fixed reason and nothing asks; grep of the workspace finds only what
// lies inside; write_file through a hard link leaves the file outside as
// it was. No request carries the provider key or a canary.
func TestReadBoundaryAuto(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	calls := []readCall{
		{"read_file", map[string]any{"path": "/proc/self/environ"}, tools.RefusedProcess},
		{"read_file", map[string]any{"path": "env"}, tools.RefusedProcess},
		{"read_file", map[string]any{"path": "/dev/fd/../environ"}, tools.RefusedProcess},
		{"read_file", map[string]any{"path": "/proc/thread-self/environ"}, tools.RefusedProcess},
		{"read_file", map[string]any{"path": "procdir/root/proc/self/environ"}, tools.RefusedProcess},
		{"grep", map[string]any{"pattern": "READSKEY", "path": "/proc/self"}, tools.RefusedProcess},
		{"grep", map[string]any{"pattern": "READSKEY", "path": "procdir"}, tools.RefusedProcess},
		{"list_dir", map[string]any{"path": "procdir"}, tools.RefusedProcess},
		{"read_file", map[string]any{"path": "outlink"}, tools.RefusedOutsideRead},
		{"read_file", map[string]any{"path": "../proj-old/notes.txt"}, tools.RefusedOutsideRead},
		{"read_file", map[string]any{"path": s.root + "/proj-old/notes.txt"}, tools.RefusedOutsideRead},
		{"grep", map[string]any{"pattern": "CANARY", "path": ".."}, tools.RefusedOutsideRead},
		{"grep", map[string]any{"pattern": "CANARY", "path": "outdir"}, tools.RefusedOutsideRead},
		{"list_dir", map[string]any{"path": "outdir"}, tools.RefusedOutsideRead},
		{"read_file", map[string]any{"path": "cargo"}, tools.RefusedCredentialRead},
		{"read_file", map[string]any{"path": s.home + "/.config/hub"}, tools.RefusedCredentialRead},
		{"grep", map[string]any{"pattern": "CANARY", "path": "azure"}, tools.RefusedCredentialRead},
		{"read_file", map[string]any{"path": s.home + "/.magi-code/notes.md"}, tools.RefusedCredentialRead},
		{"read_file", map[string]any{"path": s.root + "/mclink/notes.md"}, tools.RefusedCredentialRead},
		{"grep", map[string]any{"pattern": "CANARY", "path": "."}, strings.TrimSpace("inside.txt:1:" + readFileOr(t, filepath.Join(s.ws, "inside.txt")))},
		{"write_file", map[string]any{"path": "linked.js", "content": "REWRITTEN\n"}, "write_file: 10 bytes written\n+ REWRITTEN"},
	}
	reqs, _ := s.autoCalls(t, "read everything", calls)
	s.noSecrets(t, reqs, "")
	if got := readFileOr(t, s.store); got != "STORE-ORIGINAL\n" {
		t.Errorf("the file outside, hard-linked into the workspace, is %q", got)
	}
	if got := readFileOr(t, filepath.Join(s.ws, "linked.js")); got != "REWRITTEN\n" {
		t.Errorf("linked.js = %q", got)
	}
}

// autoCalls runs one turn under approval = "auto" whose model makes calls
// and then each of extra (answers of the recording endpoint), in order,
// and checks that nothing asked and that the model was sent each call's
// exact result. It returns what the model was sent, and the status's
// sandbox.
func (s *readScene) autoCalls(t *testing.T, prompt string, calls []readCall, extra ...http.HandlerFunc) ([]llmRequest, string) {
	t.Helper()
	var answers []http.HandlerFunc
	for i, c := range calls {
		answers = append(answers, oaCall(fmt.Sprintf("call_%d", i), c.tool, c.args))
	}
	answers = append(answers, extra...)
	llm := newLLMServer(t, append(answers, sseAnswer(false, oaTextResponse("done")...))...)
	ch := s.start(t, openaiFormat.settings(llm.srv.URL)+"\n[tools]\napproval = \"auto\"\n")
	var st struct {
		Sandbox string `json:"sandbox"`
	}
	ch.Result("status", nil, &st)
	r := ch.Turn(ch.Create().SessionID, prompt)
	r.WantOutcome(t, "completed", "")
	if n := r.Count(protocol.EventApprovalRequested); n != 0 {
		t.Errorf("%d approval requests under auto; want 0", n)
	}
	ch.Shutdown()
	reqs := llm.recorded()
	if len(reqs) != len(answers)+1 {
		t.Fatalf("%d model requests; want %d", len(reqs), len(answers)+1)
	}
	for i, c := range calls {
		if got := strings.TrimSpace(lastToolResult(t, reqs[i+1].Body)); got != c.want {
			t.Errorf("%s(%v): the model was sent %.200q; want %q", c.tool, c.args, got, c.want)
		}
	}
	return reqs, st.Sandbox
}

func readFileOr(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadBoundaryAsk: under approval = "ask" a read outside the workspace
// asks through approval.requested; denied, the model is told so and sent
// nothing of the file; allowed, it is sent the file. Protections refuse
// before anything asks.
func TestReadBoundaryAsk(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	calls := []readCall{
		{"read_file", map[string]any{"path": "outlink"}, "denied by user"},
		{"read_file", map[string]any{"path": s.root + "/outside/notes.txt"}, s.outsideCanary},
		{"read_file", map[string]any{"path": "/proc/self/environ"}, tools.RefusedProcess},
		{"read_file", map[string]any{"path": "cargo"}, tools.RefusedCredentialRead},
		{"grep", map[string]any{"pattern": "CANARY", "path": s.root + "/proj-old"}, "denied by user"},
		{"list_dir", map[string]any{"path": "outdir"}, "back\nnotes.txt"},
		{"read_file", map[string]any{"path": "inside.txt"}, strings.TrimSpace(readFileOr(t, filepath.Join(s.ws, "inside.txt")))},
	}
	if err := os.Symlink("../proj", filepath.Join(s.root, "outside", "back")); err != nil {
		t.Fatal(err)
	}
	answers := []bool{false, true, false, true} // the four outside reads, in order
	var script []http.HandlerFunc
	for i, c := range calls {
		script = append(script, oaCall(fmt.Sprintf("call_%d", i), c.tool, c.args))
	}
	llm := newLLMServer(t, append(script, sseAnswer(false, oaTextResponse("done")...))...)
	ch := s.start(t, openaiFormat.settings(llm.srv.URL)+"\n[tools]\napproval = \"ask\"\n")
	sid := ch.Create().SessionID
	runID, adm := ch.StartTurn(sid, "read around")
	var evs []client.Event
	for i, allow := range answers {
		ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
		var req clienttest.ApprovalRequested
		if err := ev.Decode(&req); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(req.Summary, tools.ReasonReadOutside) {
			t.Errorf("approval %d summary %q; want the reason %q", i, req.Summary, tools.ReasonReadOutside)
		}
		ch.Answer(sid, runID, req.ApprovalID, allow)
	}
	r := ch.Finish(sid, runID, adm, evs)
	r.WantOutcome(t, "completed", "")
	if n := r.Count(protocol.EventApprovalRequested); n != len(answers) {
		t.Errorf("%d approval requests; want %d (outside reads only)", n, len(answers))
	}
	reqs := llm.recorded()
	if len(reqs) != len(calls)+1 {
		t.Fatalf("%d model requests; want %d", len(reqs), len(calls)+1)
	}
	for i, c := range calls {
		if got := strings.TrimSpace(lastToolResult(t, reqs[i+1].Body)); got != c.want {
			t.Errorf("%s(%v): the model was sent %.200q; want %q", c.tool, c.args, got, c.want)
		}
	}
	s.noSecrets(t, reqs, s.outsideCanary)
	for i, r := range reqs[:2] {
		if strings.Contains(string(r.Body), s.outsideCanary) {
			t.Errorf("request %d, before the allowed read, carries the outside canary", i)
		}
	}
	ch.Shutdown()
}

// TestReadBoundaryCodeMode: run_code's calls get the same rules under
// [tools.code_mode] approval: /proc and credentials refused without
// asking, an outside read asking "from code" (allowed: read; denied: not),
// and under auto refused.
func TestReadBoundaryCodeMode(t *testing.T) {
	t.Parallel()
	const program = `const out = [];
for (const p of ["/proc/self/environ", "env", "outlink", "cargo", "../proj-old/notes.txt", "inside.txt"]) {
  try { out.push(p + " => " + tools.read_file({path: p}).trim()); } catch (e) { out.push(p + " => " + e.message); }
}
return out.join("\n");`
	for _, tc := range []struct {
		approval string
		answers  []bool
		want     []string
	}{
		{"ask", []bool{true, false}, []string{
			"/proc/self/environ => " + tools.RefusedProcess, "env => " + tools.RefusedProcess,
			"outlink => OUTSIDE", "cargo => " + tools.RefusedCredentialRead,
			"../proj-old/notes.txt => read_file: denied by user", "inside.txt => INSIDE-CANARY",
		}},
		{"auto", nil, []string{
			"/proc/self/environ => " + tools.RefusedProcess, "env => " + tools.RefusedProcess,
			"outlink => " + tools.RefusedOutsideRead, "cargo => " + tools.RefusedCredentialRead,
			"../proj-old/notes.txt => " + tools.RefusedOutsideRead, "inside.txt => INSIDE-CANARY",
		}},
	} {
		t.Run(tc.approval, func(t *testing.T) {
			t.Parallel()
			s := newReadScene(t)
			llm := newLLMServer(t, oaCall("call_code", "run_code", map[string]any{"code": program}), sseAnswer(false, oaTextResponse("done")...))
			settings := openaiFormat.settings(llm.srv.URL) + "\n[tools]\napproval = \"auto\"\n[tools.code_mode]\nenabled = true\nallow = [\"read_file\"]\napproval = " + clienttest.Quote(tc.approval) + "\n"
			ch := s.start(t, settings)
			sid := ch.Create().SessionID
			runID, adm := ch.StartTurn(sid, "run it")
			var evs []client.Event
			for _, allow := range tc.answers {
				ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
				var req clienttest.ApprovalRequested
				if err := ev.Decode(&req); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(req.Summary, "from code") || !strings.Contains(req.Summary, tools.ReasonReadOutside) {
					t.Errorf("approval summary %q; want it from code, with the reason", req.Summary)
				}
				ch.Answer(sid, runID, req.ApprovalID, allow)
			}
			r := ch.Finish(sid, runID, adm, evs)
			r.WantOutcome(t, "completed", "")
			if n := r.Count(protocol.EventApprovalRequested); n != len(tc.answers) {
				t.Errorf("%d approval requests; want %d", n, len(tc.answers))
			}
			reqs := llm.recorded()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests; want 2", len(reqs))
			}
			got := lastToolResult(t, reqs[1].Body)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the program's result lacks %q:\n%s", w, got)
				}
			}
			except := ""
			if tc.approval == "ask" {
				except = s.outsideCanary
			}
			s.noSecrets(t, reqs, except)
			ch.Shutdown()
		})
	}
}

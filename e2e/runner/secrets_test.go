package runner

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/redact"
)

// TestNoCredentialLeaks starts a child whose environment holds provider
// keys, with the OpenAI provider against a local server (so the key is in
// use), hooks on every event, a shell tool call and an MCP server, each
// writing its environment to a file; then checks that no hook, tool
// subprocess, MCP server, frame, model request body or file under MC_HOME
// holds either key.
func TestNoCredentialLeaks(t *testing.T) {
	t.Parallel()
	unique := fmt.Sprintf("%d%d", time.Now().UnixNano(), os.Getpid())
	openaiKey := "sk-test-" + unique + "openai"
	anthropicKey := "sk-ant-test-" + unique + "anthropic"
	dir := t.TempDir()
	shellEnv, hookEnv, serverEnv := filepath.Join(dir, "shell.env"), filepath.Join(dir, "hook.env"), filepath.Join(dir, "server.env")

	llm := newLLMServer(t,
		sseAnswer(false, oaChunk(`{"role":"assistant","content":""}`, ""),
			oaChunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"shell","arguments":`+clienttest.Quote(`{"command":`+clienttest.Quote("env > "+shellEnv)+`}`)+`}}]}`, ""),
			oaChunk(`{}`, "tool_calls"), oaDone),
		sseAnswer(false, oaChunk(`{"role":"assistant","content":""}`, ""),
			oaChunk(`{"tool_calls":[{"index":0,"id":"call_b","type":"function","function":{"name":"mcp__srv__env","arguments":"{}"}}]}`, ""),
			oaChunk(`{}`, "tool_calls"), oaDone),
		sseAnswer(false, oaTextResponse("all ", "done")...))
	settings := openaiFormat.settings(llm.srv.URL) + "\n[tools]\napproval = \"auto\"\n" +
		hook("pre_tool_use", "", "env >> "+hookEnv) +
		hook("post_tool_use", "", "env >> "+hookEnv) +
		hook("stop", "", "env >> "+hookEnv) +
		mcpServer("srv", map[string]string{"MCP_ENV_FILE": serverEnv})
	ws := clienttest.NewWorkspace(t, settings)
	env := append(ws.Env(), "OPENAI_API_KEY="+openaiKey, "ANTHROPIC_API_KEY="+anthropicKey)
	ch := startChild(t, ws, client.Options{Env: env, RecordFrames: true})
	sid := ch.Create().SessionID
	r := ch.Turn(sid, "show me your environment")
	r.WantOutcome(t, "completed", "")
	if r.Reply() != "all done" {
		t.Fatalf("reply %q", r.Reply())
	}
	acts := r.Activities
	if len(acts) != 4 || acts[1].State != "completed" || acts[3].State != "completed" {
		t.Fatalf("activities %+v", acts)
	}
	entries := ch.history(sid, r)
	ch.Shutdown()

	keys := []string{openaiKey, anthropicKey, unique}
	for _, path := range []string{shellEnv, hookEnv, serverEnv} {
		got := readFile(t, path)
		if !strings.Contains(got, "PATH=") {
			t.Fatalf("%s was not written: %q", filepath.Base(path), got)
		}
		for _, k := range keys {
			if strings.Contains(got, k) {
				t.Errorf("%s holds a provider key", filepath.Base(path))
			}
		}
	}
	// Three hook events per tool call and one stop hook.
	if n := strings.Count(readFile(t, hookEnv), "PATH="); n != 5 {
		t.Errorf("hooks ran %d times; want 5 (pre and post of two tools, stop)", n)
	}
	reqs := llm.recorded()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	for i, req := range reqs {
		if req.Header.Get("Authorization") != "Bearer "+openaiKey {
			t.Errorf("request %d: the key was not in use", i)
		}
		for _, k := range keys {
			if bytes.Contains(req.Body, []byte(k)) {
				t.Errorf("model request %d body holds a provider key", i)
			}
		}
	}
	for _, f := range ch.C.Frames() {
		for _, k := range keys {
			if bytes.Contains(f.Raw, []byte(k)) {
				t.Errorf("frame %d holds a provider key", f.Seq)
			}
		}
	}
	for _, e := range entries {
		for _, k := range keys {
			if strings.Contains(e.Text, k) {
				t.Errorf("history entry %s holds a provider key", e.Kind)
			}
		}
	}
	if noKeyUnder(t, ws.Home, keys) == 0 {
		t.Fatal("no file under MC_HOME: no session was written")
	}
	noKeyUnder(t, ws.Cwd, keys)
}

// noKeyUnder fails if a file under root holds any of keys, and returns how
// many files it read.
func noKeyUnder(t *testing.T, root string, keys []string) (files int) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if bytes.Contains(data, []byte(k)) {
				t.Errorf("%s holds a provider key", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestSecretShapedPrompt: a prompt holding a secret-shaped string is stored
// for the provider, but every projection is sanitized. Spec: "Reconcile
// before redacting and chunking; sanitize all projections". The fixture
// echoes the prompt, so the secret also reaches the assistant's deltas and
// reconciliation, which must carry the marker instead.
func TestSecretShapedPrompt(t *testing.T) {
	t.Parallel()
	secret := fmt.Sprintf("sk-proj-%dSECRETsecretSECRET", time.Now().UnixNano())
	ch := newChild(t, clienttest.FixtureSettings, client.Options{RecordFrames: true})
	sid := ch.Create().SessionID
	r := ch.Turn(sid, "please keep "+secret+" safe")
	r.WantOutcome(t, "completed", "")
	if want := "echo: please keep " + redact.Marker + " safe"; r.Reply() != want {
		t.Fatalf("reply %q; want %q", r.Reply(), want)
	}
	entries := ch.history(sid, r)
	var user string
	for _, e := range entries {
		if e.Kind == "user" {
			user += e.Text
		}
		if strings.Contains(e.Text, secret) || strings.Contains(e.Text, "SECRETsecret") {
			t.Fatalf("history entry %s shows the secret: %q", e.Kind, e.Text)
		}
	}
	if want := "please keep " + redact.Marker + " safe"; user != want {
		t.Fatalf("user entry %q; want %q", user, want)
	}
	for _, f := range ch.C.Frames() {
		if bytes.Contains(f.Raw, []byte("SECRETsecret")) {
			t.Fatalf("frame %d shows the secret: %s", f.Seq, f.Raw)
		}
	}
	ch.Shutdown()
}

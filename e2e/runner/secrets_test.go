package runner

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
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
// for the provider, but every projection is sanitized. docs/protocol.md, Run events: "Reconcile
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

// TestEverySecretFamilyRedacted: secrets of every family the redactor knows
// (our own rules and gitleaks' default rules), pasted into a prompt, run
// through a shell tool call's approval summary and echoed back by the fixture, never
// appear in any frame (deltas, reconciliation, activities) or history page;
// in the session file the activity summaries, stored redacted, hold none of
// them (the prompt and the reply are stored as sent, for provider replay).
func TestEverySecretFamilyRedacted(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))
	random := func(chars string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = chars[rng.IntN(len(chars))]
		}
		return string(b)
	}
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := func(n int) string { return random(alnum, n) }
	type family struct{ name, text, core string }
	var fams []family
	add := func(name, before, core, after string) {
		fams = append(fams, family{name, before + core + after, core})
	}
	add("sk- key", "OPENAI_API_KEY=sk-proj-", r(48), "")
	add("github token", "token ghp_", r(36), " done")
	add("aws key id", "aws_access_key_id AKIA", random("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16), "")
	add("stripe", "sk_live_", r(32), "")
	add("slack bot", "xoxb-1234567890-1234567890123-", r(24), "")
	add("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi", r(24), "."+r(32))
	add("private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE", r(120), "\n-----END RSA PRIVATE KEY-----")
	add("bearer header", "Authorization: Bearer ", r(40), "")
	basic := base64.StdEncoding.EncodeToString([]byte("deploy:" + r(20)))
	add("basic header", "curl -H 'Authorization: Basic ", basic, "'")
	add("url password", "postgres://app:", r(20), "@db.example.com:5432/app")
	add("password assignment", "DB_PASSWORD=", r(18), "")
	add("django secret key", "[django]\nSECRET_KEY = ", r(40), "")
	add("azure connection string", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=", r(86), "==;EndpointSuffix=core.windows.net")
	add("netrc", "machine api.example.com login deploy password ", r(22), "")
	add("pgpass", "db.example.com:5432:app:deploy:", r(20), "")
	docker := base64.StdEncoding.EncodeToString([]byte("deploy:" + r(30)))
	add("docker auth", `{"auths": {"registry.example.com": {"auth": "`, docker, `"}}}`)
	add("npm token", "//registry.npmjs.org/:_authToken=npm_", r(36), "")
	add("gitleaks keyword rule", "adafruit_api_key = ", random("abcdefghijklmnopqrstuvwxyz0123456789", 32), "")
	add("credential path", "cat ", "~/.aws/credentials", "")

	var prompt strings.Builder
	for _, f := range fams {
		prompt.WriteString(f.text + "\n")
	}
	// The approval's summary names the command: one line of the simple ones.
	command := ": " + fams[0].text + " " + fams[1].text + " " + fams[9].text + " " + fams[10].text
	dir := t.TempDir()
	ws := clienttest.NewWorkspace(t, script(t, dir, []step{shell(command)})+"\n[tools]\napproval = \"ask\"\n")
	ch := startChild(t, ws, client.Options{RecordFrames: true})
	sid := ch.Create().SessionID
	runID, adm := ch.StartTurn(sid, prompt.String())
	var evs []client.Event
	ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
	var req clienttest.ApprovalRequested
	if err := ev.Decode(&req); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(req.Summary, redact.Marker) {
		t.Fatalf("approval summary %q: want the command's secrets redacted", req.Summary)
	}
	if r := ch.AnswerCall(sid, runID, req.ApprovalID, true); r.Error != nil {
		t.Fatalf("approval.answer: %s", r.Error.Code)
	}
	run := ch.Finish(sid, runID, adm, evs)
	run.WantOutcome(t, "completed", "")
	if !strings.HasPrefix(run.Reply(), "echo: ") {
		t.Fatalf("reply %q: want the echo", run.Reply())
	}
	for _, fam := range fams {
		if strings.Contains(run.Reply(), fam.core) {
			t.Errorf("the reply shows the %s", fam.name)
		}
	}
	entries := ch.history(sid, run)
	ch.Shutdown()

	for _, f := range ch.C.Frames() {
		for _, fam := range fams {
			if bytes.Contains(f.Raw, []byte(fam.core)) {
				t.Errorf("frame %d shows the %s: %s", f.Seq, fam.name, f.Raw)
			}
		}
	}
	for _, e := range entries {
		for _, fam := range fams {
			if strings.Contains(e.Text, fam.core) {
				t.Errorf("history %s entry shows the %s: %q", e.Kind, fam.name, e.Text)
			}
		}
	}
	stored := readFile(t, clienttest.SessionFile(ws.Home, sid))
	activities := 0
	for _, line := range strings.Split(stored, "\n") {
		if !strings.Contains(line, `"activity"`) {
			continue
		}
		activities++
		for _, fam := range fams {
			if strings.Contains(line, fam.core) {
				t.Errorf("stored activity shows the %s: %s", fam.name, line)
			}
		}
	}
	if activities == 0 {
		t.Fatalf("no activity record in the session file:\n%s", stored)
	}
}

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/client/human"
	"github.com/magi-code/magi-code/internal/diaglog"
)

// outcome is one run of the binary: stdout, stderr and the exit code.
type outcome struct {
	stdout, stderr string
	code           int
}

// runIn runs bin with args in ws, stdin as given, and extra environment.
func runIn(t *testing.T, ws *clienttest.Workspace, stdin string, args []string, env ...string) outcome {
	t.Helper()
	cmd := exec.Command(clienttest.Binary(t), args...)
	cmd.Dir = ws.Cwd
	cmd.Env = append(ws.Env(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", args, err)
	}
	return outcome{out.String(), errb.String(), code}
}

// want checks one run: its exit code, that stdout and stderr contain the
// given substrings, and that a stream without expectations is empty.
func (o outcome) want(t *testing.T, what string, code int, stdout, stderr []string) {
	t.Helper()
	ok := o.code == code
	for _, s := range stdout {
		ok = ok && strings.Contains(o.stdout, s)
	}
	for _, s := range stderr {
		ok = ok && strings.Contains(o.stderr, s)
	}
	ok = ok && (len(stdout) > 0 || o.stdout == "") && (len(stderr) > 0 || o.stderr == "")
	if !ok {
		t.Fatalf("%s: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
			what, o.code, o.stdout, o.stderr, code, stdout, stderr)
	}
}

// Exit codes and streams of the command line: usage on stdout with 0 for
// help, an invalid launch exits 2 with one line on stderr and nothing on
// stdout, before any side effect.
func TestCommandLineExitCodes(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	for _, arg := range []string{"help", "-h", "--help"} {
		o := runIn(t, ws, "", []string{arg})
		o.want(t, arg, 0, []string{"Usage:", "magi-code serve --stdio", "magi-code sessions prune"}, nil)
		if o.stdout != topicHelp("") || !strings.HasPrefix(o.stdout, usage) {
			t.Fatalf("%s printed %q; want the usage text, then the flags, environment and exit codes", arg, o.stdout)
		}
	}
	for _, args := range [][]string{
		{"nosuch"}, {"help", "me"}, {"serve"}, {"serve", "--stdio", "--x"}, {"--app"}, {"daemon"},
		{"config"}, {"sessions"}, {"logs", "bad id!"}, {"schema", "x"}, {"model", "a", "b", "c"},
	} {
		runIn(t, ws, "", args).want(t, strings.Join(args, " "), 2, nil, []string{"magi-code: usage: "})
	}
	// Interactive mode needs a terminal; pipes are refused with exit 2.
	for _, args := range [][]string{nil, {"--prompt", "hi"}, {"--continue"}, {"resume"}} {
		runIn(t, ws, "", args).want(t, fmt.Sprint(args), 2, nil, []string{"interactive mode needs a terminal"})
	}
	// serve --stdio needs pipes: a regular file on stdin or stdout is refused.
	file, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for fd := range 2 {
		cmd := exec.Command(clienttest.Binary(t), "serve", "--stdio")
		cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if fd == 0 {
			cmd.Stdin = file
			cmd.Stdout = io.Discard // a pipe
		} else {
			cmd.Stdin = strings.NewReader("") // a pipe
			cmd.Stdout = file
		}
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), fmt.Sprintf("needs pipes on stdin and stdout (fd %d", fd)) {
			t.Fatalf("serve with a file on fd %d: %v, stderr %q; want exit 2 naming the fd", fd, err, stderr.String())
		}
	}
	if st, _ := file.Stat(); st.Size() != 0 {
		t.Fatalf("the refused serve wrote %d bytes to its stdout", st.Size())
	}
	// The conformance kit against a server that speaks nothing: its checks
	// fail, exit 1, the report on stdout.
	runIn(t, ws, "", []string{"conformance", "--server", "true"}).
		want(t, "conformance against a mute server", 1, []string{"FAIL  "}, nil)
}

// Settings a command cannot read end it with 1 and one line naming the
// command, the setting and its file on stderr, never a partial listing.
func TestCommandsRefuseBrokenSettings(t *testing.T) {
	ws := clienttest.NewWorkspace(t, "provider = 3\n")
	for _, c := range []struct {
		args   []string
		prefix string
	}{
		{[]string{"config", "show"}, "magi-code: config show: "},
		{[]string{"mcp", "list"}, "magi-code: mcp list: "},
		{[]string{"mcp", "approve", "x"}, "magi-code: mcp approve: "},
		{[]string{"sessions", "list"}, "magi-code: sessions list: "},
		{[]string{"sessions", "prune"}, "magi-code: sessions prune: "},
		{[]string{"model"}, "magi-code: model: "},
		{[]string{"model", "m"}, "magi-code: model: "},
	} {
		o := runIn(t, ws, "", c.args)
		o.want(t, strings.Join(c.args, " "), 1, nil, []string{c.prefix, "setting `provider` in ~/" + filepath.Base(ws.Home) + "/settings.toml must be a string"})
		if strings.Count(o.stderr, "\n") != 1 {
			t.Fatalf("%v: stderr %q; want one line", c.args, o.stderr)
		}
	}
}

// config show and mcp list never print a secret: a stored API key makes
// the selection ready without appearing, and a secret in an MCP server's
// arguments is masked.
func TestConfigShowMasksSecrets(t *testing.T) {
	ws := clienttest.NewWorkspace(t, "provider = \"openai\"\nmodel = \"gpt-test\"\n")
	const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
	const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"),
		"[mcp_servers.gh]\ncommand = \"/bin/true\"\nargs = [\"--token\", \""+token+"\"]\nenv = {GH_TOKEN = \""+token+"\"}\n")
	runIn(t, ws, "", []string{"config", "show"}).want(t, "config show before login", 0, []string{"# readiness: provider_unavailable\n"}, nil)
	runIn(t, ws, key+"\n", []string{"login", "openai"}).want(t, "login", 0, []string{"stored the openai API key"}, nil)
	o := runIn(t, ws, "", []string{"config", "show"})
	o.want(t, "config show", 0, []string{`model = "gpt-test"  # global`, "mcp gh  enabled=true approved=false source=project  /bin/true --token ********\n",
		"# readiness: ready\n", "log directory: " + filepath.Join(ws.Home, "logs") + "\n"}, nil)
	m := runIn(t, ws, "", []string{"mcp", "list"})
	m.want(t, "mcp list", 0, []string{"mcp gh  enabled=true approved=false source=project  /bin/true --token ********\n"}, nil)
	for _, out := range []string{o.stdout, m.stdout} {
		if strings.Contains(out, key) || strings.Contains(out, key[8:]) || strings.Contains(out, token[4:]) {
			t.Fatalf("a secret was printed:\n%s", out)
		}
	}
}

// login stores a key read from stdin (never echoed), logout removes it,
// model shows and stores the selection.
func TestAccountCommands(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	authFile := filepath.Join(ws.Home, "auth.json")
	const key = "sk-test-KEY-0123456789abcdef"

	runIn(t, ws, "bogus\n", []string{"login"}).want(t, "login, unknown provider read", 2, []string{"provider (openai, anthropic, openrouter or a [providers.NAME] table's name): "}, []string{errUnknownProvider})
	runIn(t, ws, "", []string{"login", "gemini"}).want(t, "login gemini", 2, nil, []string{errUnknownProvider})
	runIn(t, ws, "", []string{"login", "fixture"}).want(t, "login fixture", 2, nil, []string{errUnknownProvider})
	// A key-less local server: nothing asked, nothing stored.
	runIn(t, ws, "", []string{"login", "ollama"}).want(t, "login ollama", 0, []string{"ollama needs no key (it names no api_key_env); nothing stored\n"}, nil)
	runIn(t, ws, "", []string{"login", "openai"}).want(t, "login without a key", 1, nil, []string{"no key read; nothing stored"})
	runIn(t, ws, "\n", []string{"login", "openai"}).want(t, "login with an empty key", 1, nil, []string{"no key read; nothing stored"})
	if clienttest.FileExists(authFile) {
		t.Fatal("a failed login created auth.json")
	}

	o := runIn(t, ws, "  "+key+"  \n", []string{"login", "openai"})
	o.want(t, "login openai", 0, []string{"stored the openai API key in auth.json (mode 0600)"}, nil)
	if strings.Contains(o.stdout, key) {
		t.Fatalf("login echoed the key: %q", o.stdout)
	}
	runIn(t, ws, "anthropic\n"+key+"2\n", []string{"login"}).want(t, "login, provider asked", 0,
		[]string{"provider (openai, anthropic, openrouter or a [providers.NAME] table's name): ", "stored the anthropic API key"}, nil)
	runIn(t, ws, key+"3\n", []string{"login", "openrouter"}).want(t, "login openrouter", 0, []string{"stored the openrouter API key"}, nil)
	st, err := os.Stat(authFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json: %v, mode %v; want 0600", err, st.Mode())
	}
	data, _ := os.ReadFile(authFile)
	if !bytes.Contains(data, []byte(key)) || !bytes.Contains(data, []byte(key+"2")) || bytes.Contains(data, []byte(" "+key)) {
		t.Fatalf("auth.json does not hold both trimmed keys: %s", data)
	}

	runIn(t, ws, "", []string{"logout", "openai"}).want(t, "logout", 0, []string{"removed the stored openai credential"}, nil)
	runIn(t, ws, "", []string{"logout", "openai"}).want(t, "logout again", 1, nil, []string{"no stored credential for openai"})
	if data, _ := os.ReadFile(authFile); bytes.Contains(data, []byte(key+"\"")) || !bytes.Contains(data, []byte(key+"2")) {
		t.Fatalf("after logout openai, auth.json: %s; want only the anthropic key", data)
	}

	runIn(t, ws, "", []string{"model"}).want(t, "model", 0,
		[]string{"provider fixture (global), model fixture-model (global): ready\n"}, nil)
	runIn(t, ws, "", []string{"model", "other-model"}).want(t, "model NAME", 0,
		[]string{"provider fixture (global), model other-model (global): ready\n"}, nil)
	runIn(t, ws, "", []string{"model", "openai", "gpt-x"}).want(t, "model PROVIDER NAME", 0,
		[]string{"provider openai (global), model gpt-x (global): not ready: "}, nil)
	settings, _ := os.ReadFile(filepath.Join(ws.Home, "settings.toml"))
	if !bytes.Contains(settings, []byte(`provider = "openai"`)) || !bytes.Contains(settings, []byte(`model = "gpt-x"`)) {
		t.Fatalf("settings after model openai gpt-x:\n%s", settings)
	}
	runIn(t, ws, "", []string{"model", "ollama", "llama3.2"}).want(t, "model of a key-less preset", 0,
		[]string{"provider ollama (global), model llama3.2 (global): ready\n"}, nil)
	runIn(t, ws, "", []string{"model", "vllm", "m"}).want(t, "model of an undefined provider", 2, nil, []string{"magi-code: usage: model: unknown provider"})

	bare := clienttest.NewWorkspace(t, "")
	runIn(t, bare, "", []string{"model"}).want(t, "model, nothing set", 0, []string{"provider none, model none: not ready: "}, nil)
	runIn(t, bare, "", []string{"model", "m"}).want(t, "model NAME, no provider", 1, nil, []string{"no provider configured"})
}

// sessionFile writes a session file whose header records cwd.
func sessionFile(t *testing.T, dir, header string, age time.Duration) string {
	t.Helper()
	id := uuid.NewString()
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-age)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
	return id
}

// sessions list shows every stored session in the one listing the app's
// /sessions and the resume picker print (client/human): ID, last activity
// to the minute, size for people, workspace (a crafted cwd's control
// characters made visible) and first prompt; sessions prune removes those
// idle past session_retention_days and says what it removed.
func TestSessionsListAndPrune(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	runIn(t, ws, "", []string{"sessions", "list"}).want(t, "no sessions", 0, []string{"no sessions\n"}, nil)

	ch := ws.StartChild(t, client.Options{})
	real := ch.Create().SessionID
	ch.Turn(real, "hello") // a session is stored from its first turn
	ch.Shutdown()
	dir := filepath.Join(ws.Home, "sessions")
	realPath := filepath.Join(dir, real+".jsonl")
	header, err := bufio.NewReader(mustOpen(t, realPath)).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	cwd, _ := filepath.EvalSymlinks(ws.Cwd)
	if !strings.Contains(header, cwd) {
		t.Fatalf("header %q lacks the cwd %q", header, cwd)
	}
	crafted := sessionFile(t, dir, strings.Replace(header, cwd, `/w/a\u001b[2Jb\nc`, 1), 24*time.Hour)
	empty := sessionFile(t, dir, "", 72*time.Hour)

	o := runIn(t, ws, "", []string{"sessions", "list"})
	st, _ := os.Stat(realPath)
	lines := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
	when := regexp.QuoteMeta(st.ModTime().Local().Format("2006-01-02 15:04"))
	want := []string{
		`ID +LAST ACTIVITY +SIZE +WORKSPACE +FIRST PROMPT`,
		real + "  +" + when + "  +" + regexp.QuoteMeta(human.Size(st.Size())) + "  +" + regexp.QuoteMeta(cwd) + "  +hello",
		crafted + `  +\S+ \S+  +\S+ K?i?B  +/w/a␛\[2Jb␊c`,
		empty + `  +\S+ \S+  +0 B  +-`,
	}
	if o.code != 0 || o.stderr != "" || len(lines) != len(want) {
		t.Fatalf("sessions list: exit %d, stderr %q:\n%s\nwant %d lines, most recent first", o.code, o.stderr, o.stdout, len(want))
	}
	for i, l := range lines {
		if !regexp.MustCompile("^" + want[i] + "$").MatchString(l) {
			t.Fatalf("sessions list line %d = %q; want %q", i, l, want[i])
		}
	}

	runIn(t, ws, "", []string{"sessions", "prune"}).want(t, "prune at 30 days", 0,
		[]string{"removed 0 sessions idle for 30 days or more\n"}, nil)
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), clienttest.FixtureSettings+"session_retention_days = 2\n")
	o = runIn(t, ws, "", []string{"sessions", "prune"})
	o.want(t, "prune at 2 days", 0, []string{"removed " + empty + "  ", "removed 1 session idle for 2 days or more\n"}, nil)
	if strings.Contains(o.stdout, crafted) || strings.Contains(o.stdout, real) || clienttest.FileExists(filepath.Join(dir, empty+".jsonl")) ||
		!clienttest.FileExists(realPath) || !clienttest.FileExists(filepath.Join(dir, crafted+".jsonl")) {
		t.Fatalf("prune at 2 days removed the wrong sessions:\n%s", o.stdout)
	}
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), clienttest.FixtureSettings+"session_retention_days = 0\n")
	runIn(t, ws, "", []string{"sessions", "prune"}).want(t, "prune disabled", 0,
		[]string{"session_retention_days = 0: pruning is disabled\n"}, nil)
	if !clienttest.FileExists(filepath.Join(dir, crafted+".jsonl")) {
		t.Fatal("prune with retention 0 removed a session")
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// logs prints a child's diagnostic log byte for byte: the latest, or the
// one of a named instance; --follow keeps printing what is appended, and
// the new file after a rotation.
func TestLogsCommand(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	runIn(t, ws, "", []string{"logs"}).want(t, "logs before any child", 1, nil, []string{"magi-code: logs: no logs in "})

	ch := ws.StartChild(t, client.Options{})
	ch.Shutdown()
	files, err := diaglog.List(filepath.Join(ws.Home, "logs"))
	if err != nil || len(files) != 1 {
		t.Fatalf("logs directory: %v, %d files; want one log", err, len(files))
	}
	path := filepath.Join(ws.Home, "logs", files[0].Name())
	instance := strings.TrimSuffix(strings.TrimPrefix(files[0].Name(), diaglog.Prefix), diaglog.Suffix)
	content, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(content, []byte("serve started")) || !bytes.Contains(content, []byte(`"shutdown"`)) {
		t.Fatalf("the child's log (%v):\n%s", err, content)
	}
	// The build warning, once, exactly when the binary's Go release lacks fixes.
	if goVersion, warning := binaryWarning(t); bytes.Count(content, []byte("known security fixes missing")) != map[bool]int{true: 1, false: 0}[warning != ""] {
		t.Fatalf("the log of a child built with %s (warning %q):\n%s", goVersion, warning, content)
	}
	for _, args := range [][]string{{"logs"}, {"logs", instance}} {
		if o := runIn(t, ws, "", args); o.code != 0 || o.stdout != string(content) || o.stderr != "" {
			t.Fatalf("%v: exit %d, %d bytes, stderr %q; want the log's %d bytes", args, o.code, len(o.stdout), o.stderr, len(content))
		}
	}
	runIn(t, ws, "", []string{"logs", uuid.NewString()}).want(t, "logs of an unknown instance", 1, nil, []string{"no log of instance"})

	// --follow: the log so far, then an appended line, then the file that
	// replaced it at rotation.
	cmd := exec.Command(clienttest.Binary(t), "logs", "--follow", instance)
	cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
	var mu sync.Mutex
	var seen bytes.Buffer
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := pr.Read(b)
			mu.Lock()
			seen.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	waitOutput := func(what string, want []byte) {
		t.Helper()
		clienttest.WaitFor(t, what, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return bytes.Equal(seen.Bytes(), want)
		})
	}
	waitOutput("the log so far", content)
	appended := []byte(`{"msg":"appended"}` + "\n")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(appended); err != nil {
		t.Fatal(err)
	}
	f.Close()
	waitOutput("the appended line", append(bytes.Clone(content), appended...))
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	rotated := []byte(`{"msg":"new file"}` + "\n")
	if err := os.WriteFile(path, rotated, 0o600); err != nil {
		t.Fatal(err)
	}
	waitOutput("the new file after rotation", append(append(bytes.Clone(content), appended...), rotated...))
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	pw.Close()
}

// MAGI_CODE_CPUPROFILE makes serve write a CPU profile at a clean exit; a
// path it cannot create changes nothing (no stderr, same exit).
func TestServeCPUProfile(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	ch := ws.StartChild(t, client.Options{Env: append(ws.Env(), "MAGI_CODE_CPUPROFILE="+prof)})
	ch.Shutdown()
	data, err := os.ReadFile(prof)
	if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("profile: %v, %d bytes; want a gzip-compressed pprof profile", err, len(data))
	}
	bad := filepath.Join(t.TempDir(), "missing", "cpu.prof")
	ch = ws.StartChild(t, client.Options{Env: append(ws.Env(), "MAGI_CODE_CPUPROFILE="+bad)})
	ch.Shutdown() // exit 0; the workspace's cleanup checks stderr is empty
	if clienttest.FileExists(bad) {
		t.Fatal("a profile appeared in a missing directory")
	}
}

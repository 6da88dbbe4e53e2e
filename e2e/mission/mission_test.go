//go:build unix

// Package mission tests Mission Control, the terminal app, as a person uses
// it: the real binary on a pseudo-terminal.
package mission

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/magi-code/magi-code/client/clienttest"
)

// mcpServerBin is the MCP stdio server built from e2e/runner/testdata/mcpserver.
var mcpServerBin string

func TestMain(m *testing.M) {
	clienttest.Main(m, clienttest.Tool{Pkg: "./e2e/runner/testdata/mcpserver", Path: &mcpServerBin})
}

// term is the binary running on a pseudo-terminal, with everything it
// wrote so far.
type term struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func start(t *testing.T, ws *clienttest.Workspace, args ...string) *term {
	t.Helper()
	cmd := exec.Command(clienttest.Binary(t), args...)
	cmd.Dir = ws.Cwd
	cmd.Env = append(ws.Env(), "TERM=xterm-256color")
	tty, err := startPTY(cmd, 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, cmd: cmd, tty: tty, done: make(chan struct{})}
	go func() { // ends when the terminal closes (the child exits)
		defer close(tm.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { endPTY(t, cmd, tty, tm.done) })
	return tm
}

// screen is everything written, without escape sequences.
func (tm *term) screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return ansi.Strip(tm.out.String())
}

// waitFor waits until the screen shows s.
func (tm *term) waitFor(s string) {
	tm.t.Helper()
	tm.waitForNth(s, 1)
}

// waitForNth waits until the screen shows s n times: a line that an
// earlier step already printed (a second "turn completed") is not yet
// the one awaited.
func (tm *term) waitForNth(s string, n int) {
	tm.t.Helper()
	deadline := time.Now().Add(clienttest.HangGuard)
	for strings.Count(tm.screen(), s) < n {
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen never showed %q %d times:\n%s", s, n, tm.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (tm *term) typeText(s string) {
	tm.t.Helper()
	if _, err := io.WriteString(tm.tty, s); err != nil {
		tm.t.Fatal(err)
	}
}

// exit waits for the process and returns its exit code.
func (tm *term) exit() int {
	tm.t.Helper()
	waited := make(chan error, 1)
	go func() { waited <- tm.cmd.Wait() }()
	select {
	case err := <-waited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			tm.t.Fatal(err)
		}
		return 0
	case <-time.After(clienttest.HangGuard):
		tm.t.Fatalf("did not exit:\n%s", tm.screen())
		return -1
	}
}

// A person logs in with a key, then works with the fixture model: a turn
// with a tool call that asks for approval, answered with a key.
func TestLoginThenATurnWithApproval(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
		Responses: [][]clienttest.Step{
			clienttest.Response(clienttest.Shell("echo approved-and-ran")),
			clienttest.Response(clienttest.Text("All **done**.")),
		},
	})
	const key = "sk-pty-test-0123456789abcdefghijkl"
	login := start(t, ws, "login", "openai")
	login.waitFor("openai API key (not shown)")
	login.typeText(key + "\r")
	login.waitFor("stored the openai API key")
	if code := login.exit(); code != 0 {
		t.Fatalf("login exit %d:\n%s", code, login.screen())
	}
	st, err := os.Stat(filepath.Join(ws.Home, "auth.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json: %v, mode %v; want 0600", err, st.Mode().Perm())
	}
	data, _ := os.ReadFile(filepath.Join(ws.Home, "auth.json"))
	if !strings.Contains(string(data), key) {
		t.Fatalf("auth.json lacks the key:\n%s", data)
	}

	mc := start(t, ws)
	mc.waitFor("fixture-model")
	mc.typeText("run the tool\r")
	mc.waitFor("approve?")
	time.Sleep(typingPause) // the person reads the request, then answers
	mc.typeText("y")
	mc.waitFor("turn completed")
	screen := mc.screen()
	for _, want := range []string{"you› run the tool", "All done.", "✓ shell", "allowed: "} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q", want)
		}
	}
	mc.typeText("/quit\r")
	if code := mc.exit(); code != 0 {
		t.Fatalf("exit %d after /quit:\n%s", code, mc.screen())
	}
	for _, s := range []string{login.screen(), mc.screen()} {
		if strings.Contains(s, key) || strings.Contains(s, key[:12]) {
			t.Fatalf("the key appeared on the screen:\n%s", s)
		}
	}
	if t.Failed() || os.Getenv("MISSION_TRANSCRIPT") != "" {
		t.Logf("screen:\n%s", screen)
	}
}

// --prompt runs one turn in the same UI: exit 0 on completed, 1 on failed.
func TestPromptExitCodes(t *testing.T) {
	ok := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	tm := start(t, ok, "--prompt", "hello")
	tm.waitFor("echo: hello")
	if code := tm.exit(); code != 0 {
		t.Fatalf("completed turn: exit %d; want 0:\n%s", code, tm.screen())
	}
	bad := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
		Responses: [][]clienttest.Step{clienttest.Response(clienttest.Text("partial "), clienttest.Step{"error": "provider_unavailable"})},
	})
	tm = start(t, bad, "--prompt", "hello")
	tm.waitFor("turn failed")
	if code := tm.exit(); code != 1 {
		t.Fatalf("failed turn: exit %d; want 1:\n%s", code, tm.screen())
	}
}

// --prompt through pipes keeps the launch rule: exit 2, nothing started.
func TestPromptThroughPipesExits2(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	cmd := exec.Command(clienttest.Binary(t), "--prompt", "hello")
	cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "terminal") {
		t.Fatalf("--prompt through pipes: %v, stdout %q, stderr %q; want exit 2 with one line", err, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(ws.Home, "sessions")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused launch created the sessions directory (%v)", err)
	}
}

// --continue reopens this directory's latest session and replays its
// history; /sessions lists it with its first prompt.
func TestContinueReplaysHistory(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	first := start(t, ws, "--prompt", "remember the walrus")
	first.waitFor("turn completed")
	if code := first.exit(); code != 0 {
		t.Fatalf("first turn: exit %d", code)
	}
	tm := start(t, ws, "--continue")
	tm.waitFor("resumed session")
	tm.waitFor("echo: remember the walrus")
	tm.typeText("/sessions\r")
	tm.waitFor("B  remember the walrus")
	tm.typeText("/quit\r")
	if code := tm.exit(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, tm.screen())
	}
}

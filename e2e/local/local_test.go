//go:build e2elocal

// Package local is the opt-in test against a real llama.cpp server (make
// e2e-local; docs/testing.md): tool round trips through serve --stdio and
// --prompt with the llamacpp provider, against llama-server built from
// node-llama-cpp's source and a generated deterministic model.
package local

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

func TestMain(m *testing.M) { clienttest.Main(m) }

// sentence is the model's answer once the tool result is in the
// conversation (e2e/local/genmodel).
const sentence = "The listing is in."

// Round trips of each front door; each is a tool call, the tool's result
// sent back (on the connection the server may have closed) and the answer.
const serveTurns, promptTurns = 12, 10

// TestLocalServer starts llama-server (MAGI_CODE_LLAMA_SERVER) with the
// model (MAGI_CODE_LLAMA_MODEL) on a loopback port, runs the round trips,
// and kills the server by its PID. Every round trip must complete.
func TestLocalServer(t *testing.T) {
	bin, model := os.Getenv("MAGI_CODE_LLAMA_SERVER"), os.Getenv("MAGI_CODE_LLAMA_MODEL")
	if bin == "" || model == "" {
		t.Fatal("MAGI_CODE_LLAMA_SERVER and MAGI_CODE_LLAMA_MODEL must name the server and the model (make e2e-local)")
	}
	base := startServer(t, bin, model)
	settings := "provider = \"llamacpp\"\nmodel = \"local\"\n[providers.llamacpp]\nbase_url = " + clienttest.Quote(base) + "\n"

	passed, retried := 0, 0
	t.Run("serve", func(t *testing.T) {
		ws := clienttest.NewWorkspace(t, settings)
		ws.WriteFile(t, filepath.Join(ws.Cwd, "notes.txt"), "hello")
		ch := ws.StartChild(t, client.Options{})
		for i := range serveTurns {
			// A session of its own: the model answers with the sentence
			// whenever a tool result is anywhere in the context.
			sid := ch.Create().SessionID
			r := ch.Turn(sid, "list the files")
			if r.Finished.Outcome != "completed" || r.Reply() != sentence || r.Count("activity") < 2 {
				t.Errorf("serve turn %d: %s, reply %q, %d activity events", i, r.Terminal(), r.Reply(), r.Count("activity"))
				continue
			}
			passed++
		}
		ch.Shutdown()
		retried += retries(t, ws.Home)
	})
	t.Run("prompt", func(t *testing.T) {
		ws := clienttest.NewWorkspace(t, settings)
		ws.WriteFile(t, filepath.Join(ws.Cwd, "notes.txt"), "hello")
		for i := range promptTurns {
			code, screen := prompt(t, ws, "list the files")
			if code != 0 || !strings.Contains(screen, sentence) || !strings.Contains(screen, "list_dir") {
				t.Errorf("--prompt %d: exit %d; want 0 with the tool and the answer:\n%s", i, code, screen)
				continue
			}
			passed++
		}
		retried += retries(t, ws.Home)
	})
	t.Logf("round trips passed: %d of %d; provider calls retried: %d (the diagnostic logs' retry lines)",
		passed, serveTurns+promptTurns, retried)
}

// retries counts the retry lines of the diagnostic logs under home.
func retries(t *testing.T, home string) int {
	n := 0
	files, _ := filepath.Glob(filepath.Join(home, "logs", "*.log"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Error(err)
		}
		n += strings.Count(string(b), "retrying in")
	}
	return n
}

// startServer starts llama-server on a free loopback port, waits until it
// is ready and returns its /v1 URL; the test's cleanup kills it by PID.
func startServer(t *testing.T, bin, model string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var log bytes.Buffer
	cmd := exec.Command(bin, "-m", model, "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"--jinja", "-c", "32768", "-np", "1", "--no-webui")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		// By its PID, and only it.
		p, err := os.FindProcess(pid)
		if err == nil {
			_ = p.Kill()
		}
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("llama-server's log:\n%s", log.String())
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	clienttest.WaitFor(t, "llama-server ready", func() bool {
		res, err := http.Get(url + "/health")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	return url + "/v1"
}

// prompt runs magi-code --prompt on a pseudo-terminal (the interactive
// mode needs one) and returns its exit code and what it showed.
func prompt(t *testing.T, ws *clienttest.Workspace, text string) (int, string) {
	t.Helper()
	cmd := exec.Command(clienttest.Binary(t), "--prompt", text)
	cmd.Dir = ws.Cwd
	cmd.Env = append(ws.Env(), "TERM=xterm-256color")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	read := make(chan struct{})
	go func() { // ends when the terminal closes
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-waited:
	case <-time.After(clienttest.HangGuard):
		_ = cmd.Process.Kill()
		werr = <-waited
	}
	tty.Close()
	<-read
	mu.Lock()
	screen := ansi.Strip(out.String())
	mu.Unlock()
	var ee *exec.ExitError
	switch {
	case errors.As(werr, &ee):
		return ee.ExitCode(), screen
	case werr != nil:
		t.Fatal(werr)
	}
	return 0, screen
}

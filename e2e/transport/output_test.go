package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol/schemacheck"
)

// rawChild is a serve --stdio child driven without the client, so that a
// test can stop reading its stdout (or close the read end) at will.
type rawChild struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File // read end; the child holds the write end
	lines  *bufio.Reader
	stderr *bytes.Buffer
	done   chan error // cmd.Wait's result
}

func startRaw(t *testing.T, ws *clienttest.Workspace) *rawChild {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(clienttest.Binary(t), "serve", "--stdio")
	cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
	cmd.Stdout = w
	ch := &rawChild{cmd: cmd, stdout: r, lines: bufio.NewReaderSize(r, 1<<17), stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = ch.stderr
	if ch.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close() // only the child writes to stdout now
	go func() { ch.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-ch.done
		ch.done <- nil // for a second exit call
		_ = r.Close()
	})
	return ch
}

// call writes one request and reads lines until the response with id.
func (ch *rawChild) call(t *testing.T, id, method, params string) map[string]json.RawMessage {
	t.Helper()
	if _, err := io.WriteString(ch.stdin, reqLine(id, method, params)); err != nil {
		t.Fatal(err)
	}
	for {
		line, err := ch.lines.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading the response to %s: %v", id, err)
		}
		var f map[string]json.RawMessage
		if err := json.Unmarshal(line, &f); err != nil {
			t.Fatalf("bad frame %q", line)
		}
		if err := schemacheck.Validate(line); err != nil {
			t.Fatalf("frame %q: %v", line, err)
		}
		if string(f["id"]) == clienttest.Quote(id) {
			if _, ok := f["error"]; ok {
				t.Fatalf("%s answered %s", method, line)
			}
			return f
		}
	}
}

// exit waits for the child under the hang guard; its exit code.
func (ch *rawChild) exit(t *testing.T) int {
	t.Helper()
	var err error
	select {
	case err = <-ch.done:
		ch.done <- err
	case <-time.After(clienttest.HangGuard):
		t.Fatalf("child did not exit within %v", clienttest.HangGuard)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// flood writes status requests until the child stops reading (it exited)
// or n were sent, in a goroutine the returned function waits for.
func (ch *rawChild) flood(n int) (wait func()) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var batch strings.Builder
		for i := 0; i < n; i += 100 {
			batch.Reset()
			for j := i; j < i+100 && j < n; j++ {
				batch.WriteString(reqLine(fmt.Sprintf("f%d", j), "status", "{}"))
			}
			if _, err := io.WriteString(ch.stdin, batch.String()); err != nil {
				return // EPIPE: the child has exited
			}
		}
	}()
	return wg.Wait
}

// TestStalledReader: the reader stops reading stdout while the child has
// more than 64 KiB to say. docs/protocol.md, Exit status: "Queue overflow terminates with exit 1";
// "The oldest output frame exceeding its absolute deadline terminates with
// exit 1"; "Runtime transport failure exits 1 without stderr diagnostics".
// The test never reads stdout again, yet keeps the read end open.
func TestStalledReader(t *testing.T) {
	t.Run("pipelined status responses", func(t *testing.T) {
		ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
		ch := startRaw(t, ws)
		ch.call(t, "init", "initialize", initParams)
		// ~300 bytes per status response: 20,000 of them are ~6 MB, far
		// more than the pipe buffer plus 32 pending frames.
		wait := ch.flood(20000)
		if code := ch.exit(t); code != 1 {
			t.Errorf("exit code %d; want 1", code)
		}
		_ = ch.stdin.Close()
		wait()
		if ch.stderr.Len() != 0 {
			t.Errorf("stderr %q; want empty", ch.stderr.Bytes())
		}
	})
	t.Run("pipelined errors before initialize", func(t *testing.T) {
		ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
		ch := startRaw(t, ws)
		wait := ch.flood(20000)
		if code := ch.exit(t); code != 1 {
			t.Errorf("exit code %d; want 1", code)
		}
		_ = ch.stdin.Close()
		wait()
		if ch.stderr.Len() != 0 {
			t.Errorf("stderr %q; want empty", ch.stderr.Bytes())
		}
	})
	t.Run("turn streaming 100 MB of deltas", func(t *testing.T) {
		ws := clienttest.NewWorkspace(t, "")
		script := filepath.Join(ws.Home, "script.json")
		delta := strings.Repeat("abcdefghi ", 10) // 100 bytes
		ws.WriteFile(t, script, `{"responses":[{"steps":[{"text":`+clienttest.Quote(delta)+`,"repeat":1000000}]}]}`)
		ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"),
			clienttest.FixtureSettings+"\n[providers.fixture]\nscript = "+clienttest.Quote(script)+"\n")
		ch := startRaw(t, ws)
		ch.call(t, "init", "initialize", initParams)
		res := ch.call(t, "create", "session.create", "{}")
		var created struct {
			SessionID string `json:"session_id"`
		}
		if err := json.Unmarshal(res["result"], &created); err != nil || created.SessionID == "" {
			t.Fatalf("session.create result %s", res["result"])
		}
		// From here on nothing reads stdout.
		if _, err := io.WriteString(ch.stdin, reqLine("turn", "turn.start", `{"session_id":`+clienttest.Quote(created.SessionID)+`,"prompt":"go"}`)); err != nil {
			t.Fatal(err)
		}
		if code := ch.exit(t); code != 1 {
			t.Errorf("exit code %d; want 1", code)
		}
		if ch.stderr.Len() != 0 {
			t.Errorf("stderr %q; want empty", ch.stderr.Bytes())
		}
	})
}

// TestClosedReader: the read end of stdout is closed; the next output
// frame meets EPIPE. docs/protocol.md, Ordering and delivery: "Broken output terminates with exit 1", without
// stderr, and SIGPIPE must not kill the child.
func TestClosedReader(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(t *testing.T, ch *rawChild)
		request string
	}{
		{"error response before initialize", nil, reqLine("s1", "status", "{}")},
		{"initialize response", nil, reqLine("i1", "initialize", initParams)},
		{"status after initialize", func(t *testing.T, ch *rawChild) {
			ch.call(t, "init", "initialize", initParams)
		}, reqLine("s2", "status", "{}")},
		{"shutdown response", func(t *testing.T, ch *rawChild) {
			ch.call(t, "init", "initialize", initParams)
		}, reqLine("bye", "shutdown", "{}")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
			ch := startRaw(t, ws)
			if c.prepare != nil {
				c.prepare(t, ch)
			}
			if err := ch.stdout.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(ch.stdin, c.request); err != nil {
				t.Fatal(err)
			}
			if code := ch.exit(t); code != 1 {
				t.Errorf("exit code %d; want 1 (a signal death is -1)", code)
			}
			if ch.stderr.Len() != 0 {
				t.Errorf("stderr %q; want empty", ch.stderr.Bytes())
			}
		})
	}
}

// TestStdoutProtocolOnly: "Stdout contains protocol bytes only" and "No
// banner": every byte of stdout, read raw from the first, belongs to an
// LF-terminated response frame, and each answered frame is there.
func TestStdoutProtocolOnly(t *testing.T) {
	ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings)
	ch := startRaw(t, ws)
	// Six answered frames: not_initialized, initialize (a result, or
	// startup_cancelled if shutdown overtakes it), invalid_frame,
	// invalid_request, status, shutdown.
	in := reqLine("a", "status", "{}") + reqLine("b", "initialize", initParams) + "\n" + "junk\n" +
		reqLine("c", "status", "{}") + reqLine("d", "shutdown", "{}")
	if _, err := io.WriteString(ch.stdin, in); err != nil {
		t.Fatal(err)
	}
	_ = ch.stdin.Close()
	out, err := io.ReadAll(ch.lines) // EOF once the child exits
	if err != nil {
		t.Fatal(err)
	}
	if code := ch.exit(t); code != 0 {
		t.Errorf("exit code %d; want 0", code)
	}
	if len(out) == 0 || out[len(out)-1] != '\n' {
		t.Fatalf("stdout %q does not end with LF", out)
	}
	lines := bytes.SplitAfter(out[:len(out)-1], []byte("\n"))
	for i, l := range lines {
		prefix := `{"protocol":"magi-code.local-agent","version":1,"type":"response","instance_id":"`
		if !bytes.HasPrefix(l, []byte(prefix)) {
			t.Errorf("stdout line %d is not a response frame: %q", i, l)
		}
	}
	if len(lines) != 6 {
		t.Errorf("%d frames on stdout; want 6:\n%s", len(lines), out)
	}
	if !bytes.Contains(lines[0], []byte(`"seq":1,`)) {
		t.Errorf("first frame is not seq 1: %q", lines[0])
	}
	if ch.stderr.Len() != 0 {
		t.Errorf("stderr %q; want empty", ch.stderr.Bytes())
	}
}

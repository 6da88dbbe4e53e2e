//go:build unix

package acp

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client/clienttest"
)

// frame is one line the child wrote, decoded.
type frame struct {
	raw    string
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
		Data struct {
			Code string `json:"code"`
		} `json:"data"`
	} `json:"error"`
}

// update is a session/update's params.
type update struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		Kind       string `json:"sessionUpdate"`
		MessageID  string `json:"messageId"`
		ToolCallID string `json:"toolCallId"`
		Title      string `json:"title"`
		Status     string `json:"status"`
		ToolKind   string `json:"kind"`
		Content    json.RawMessage
		Text       string `json:"-"`
	} `json:"update"`
}

func (f frame) update(t testing.TB) update {
	t.Helper()
	var u update
	if err := json.Unmarshal(f.Params, &u); err != nil {
		t.Fatalf("update %s: %v", f.raw, err)
	}
	var c struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(u.Update.Content, &c) == nil && c.Type == "text" {
		u.Update.Text = c.Text
	}
	return u
}

// agent is one running `magi-code acp` child.
type agent struct {
	t      testing.TB
	ws     *clienttest.Workspace
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	frames chan frame
	exited chan struct{}
	stderr strings.Builder
	nextID int
}

// guard bounds every wait: only reached when the child misbehaves.
const guard = 20 * time.Second

func start(t testing.TB, ws *clienttest.Workspace) *agent {
	t.Helper()
	cmd := exec.Command(clienttest.Binary(t), "acp")
	cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{t: t, ws: ws, cmd: cmd, stdin: stdin, frames: make(chan frame, 4096), exited: make(chan struct{})}
	cmd.Stderr = &a.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(a.frames)
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				if line != "" {
					t.Errorf("output ends without LF: %.200q", line)
				}
				return
			}
			if len(line) > 65536 {
				t.Errorf("frame of %d bytes", len(line))
			}
			var f frame
			var env struct {
				JSONRPC string `json:"jsonrpc"`
			}
			if json.Unmarshal([]byte(line), &f) != nil || json.Unmarshal([]byte(line), &env) != nil || env.JSONRPC != "2.0" {
				t.Errorf("not a JSON-RPC 2.0 frame: %.200q", line)
				continue
			}
			f.raw = line
			a.frames <- f
		}
	}()
	go func() { _ = cmd.Wait(); close(a.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-a.exited
	})
	return a
}

func (a *agent) send(v any) {
	a.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		a.t.Fatal(err)
	}
	a.sendLine(string(b))
}

func (a *agent) sendLine(s string) {
	a.t.Helper()
	if _, err := io.WriteString(a.stdin, s+"\n"); err != nil {
		a.t.Fatalf("write: %v", err)
	}
}

// request sends a request and returns its id.
func (a *agent) request(method string, params any) string {
	a.t.Helper()
	a.nextID++
	id := strconv.Itoa(a.nextID)
	a.send(map[string]any{"jsonrpc": "2.0", "id": a.nextID, "method": method, "params": params})
	return id
}

// next returns the next frame.
func (a *agent) next() frame {
	a.t.Helper()
	select {
	case f, ok := <-a.frames:
		if !ok {
			a.t.Fatalf("output ended (stderr %q)", a.stderr.String())
		}
		return f
	case <-time.After(guard):
		a.t.Fatal("no frame within the guard")
	}
	return frame{}
}

// until reads frames up to the response to id, handing each other frame
// to on (nil: collected only), and returns the response and the frames
// before it.
func (a *agent) until(id string, on func(frame)) (frame, []frame) {
	a.t.Helper()
	var seen []frame
	for {
		f := a.next()
		if f.Method == "" && string(f.ID) == id {
			return f, seen
		}
		seen = append(seen, f)
		if on != nil {
			on(f)
		}
	}
}

// call sends a request and returns its response and what came before.
func (a *agent) call(method string, params any) (frame, []frame) {
	a.t.Helper()
	return a.until(a.request(method, params), nil)
}

// initialize and newSession: the usual start.
func (a *agent) initialize() {
	a.t.Helper()
	r, _ := a.call("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true}})
	if r.Error != nil {
		a.t.Fatalf("initialize: %s", r.raw)
	}
}

func (a *agent) newSession() string {
	a.t.Helper()
	r, _ := a.call("session/new", map[string]any{"cwd": a.ws.Cwd, "mcpServers": []any{}})
	var res struct {
		SessionID string `json:"sessionId"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.SessionID == "" {
		a.t.Fatalf("session/new: %s", r.raw)
	}
	return res.SessionID
}

// prompt sends a text prompt.
func (a *agent) prompt(sessionID, text string) string {
	return a.request("session/prompt", map[string]any{"sessionId": sessionID, "prompt": []any{map[string]any{"type": "text", "text": text}}})
}

// stopReason is a prompt response's stop reason ("" for an error).
func stopReason(t testing.TB, f frame) string {
	t.Helper()
	var r struct {
		StopReason string `json:"stopReason"`
	}
	if f.Error != nil {
		return ""
	}
	if err := json.Unmarshal(f.Result, &r); err != nil {
		t.Fatalf("prompt response %s", f.raw)
	}
	return r.StopReason
}

// messages joins the text chunks of kind per messageId, in order.
func messages(t testing.TB, frames []frame, kind string) (ids []string, texts map[string]string) {
	texts = map[string]string{}
	for _, f := range frames {
		if f.Method != "session/update" {
			continue
		}
		u := f.update(t).Update
		if u.Kind != kind {
			continue
		}
		if u.MessageID == "" {
			t.Errorf("%s without messageId: %s", kind, f.raw)
		}
		if _, ok := texts[u.MessageID]; !ok {
			ids = append(ids, u.MessageID)
		}
		texts[u.MessageID] += u.Text
	}
	return ids, texts
}

// respond answers one of the child's requests.
func (a *agent) respond(id json.RawMessage, result any) {
	a.t.Helper()
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// selected is a permission answer choosing optionID.
func selected(optionID string) map[string]any {
	return map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": optionID}}
}

// wantExit closes stdin and waits for the exit code.
func (a *agent) wantExit(code int) {
	a.t.Helper()
	a.stdin.Close()
	for range a.frames {
	}
	select {
	case <-a.exited:
	case <-time.After(guard):
		a.t.Fatal("the child did not exit after EOF")
	}
	if got := a.cmd.ProcessState.ExitCode(); got != code {
		a.t.Errorf("exit code %d, want %d", got, code)
	}
	if a.stderr.Len() != 0 {
		a.t.Errorf("stderr: %q", a.stderr.String())
	}
}

// diskEditor answers the agent's fs/read_text_file and fs/write_text_file
// from the disk, as an editor may: a write replaces the file in place
// (os.WriteFile writes the inode the path names). writes, when not nil,
// counts the writes.
func diskEditor(t testing.TB, a *agent, writes *int) func(frame) {
	return func(f frame) {
		var p struct{ Path, Content string }
		_ = json.Unmarshal(f.Params, &p)
		switch f.Method {
		case "fs/read_text_file":
			b, err := os.ReadFile(p.Path)
			if err != nil {
				t.Fatal(err)
			}
			a.respond(f.ID, map[string]any{"content": string(b)})
		case "fs/write_text_file":
			if writes != nil {
				*writes++
			}
			if err := os.WriteFile(p.Path, []byte(p.Content), 0o644); err != nil {
				t.Fatal(err)
			}
			a.respond(f.ID, map[string]any{})
		}
	}
}

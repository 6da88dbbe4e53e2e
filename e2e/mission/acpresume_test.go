//go:build unix

package mission

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// A session made in an editor (over ACP), where the person allowed a
// command, resumes here with its `allowed:` line right before the call's
// line, as a session made here does; at 80 and 30 columns.
func TestACPSessionResumesWithAllowedLines(t *testing.T) {
	for _, cols := range []int{80, 30} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{
				clienttest.Response(clienttest.Shell("echo acp-ran")), clienttest.Response(clienttest.Text("acp-done")),
			}})
			acpTurn(t, ws, "run it", "allow_once")
			v := startVT(t, ws, cols, 24, "--continue")
			v.waitIdle("resumed session")
			v.waitIdle("fixture-model")
			flat := v.flat()
			allowed, call := strings.Index(flat, "allowed: shell: echo acp-ran"), strings.Index(flat, "✓ shell")
			if allowed < 0 || call < allowed || !strings.Contains(flat, "acp-done") || strings.Count(flat, "allowed:") != 1 {
				t.Fatalf("the resumed ACP session lacks its allowed: line before the call:\n%s", v.dump())
			}
		})
	}
}

// acpTurn runs one prompt in a new session of `magi-code acp` in ws,
// answering each permission request with option, and ends the process.
func acpTurn(t *testing.T, ws *clienttest.Workspace, prompt, option string) {
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
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	r := bufio.NewReaderSize(stdout, 1<<20)
	send := func(v any) {
		b, _ := json.Marshal(v)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	// wait reads frames until the response to id, answering permission
	// requests on the way.
	wait := func(id int) json.RawMessage {
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatalf("acp output ended: %v", err)
			}
			var f struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &f) != nil {
				t.Fatalf("not JSON: %.200q", line)
			}
			switch {
			case f.Method == "session/request_permission":
				send(map[string]any{"jsonrpc": "2.0", "id": f.ID, "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": option}}})
			case f.Method == "" && string(f.ID) == fmt.Sprint(id):
				if f.Error != nil {
					t.Fatalf("acp request %d: %s", id, f.Error)
				}
				return f.Result
			}
		}
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}})
	wait(1)
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": map[string]any{"cwd": ws.Cwd, "mcpServers": []any{}}})
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(wait(2), &s) != nil || s.SessionID == "" {
		t.Fatal("session/new gave no session")
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": map[string]any{"sessionId": s.SessionID,
		"prompt": []any{map[string]any{"type": "text", "text": prompt}}}})
	if res := wait(3); !strings.Contains(string(res), "end_turn") {
		t.Fatalf("the prompt ended %s", res)
	}
	stdin.Close()
	_, _ = io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("magi-code acp: %v", err)
	}
}

//go:build unix

package acp

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client/clienttest"
)

// TestStalledClient: a client that stops reading while a reply floods
// meets the writer's output deadline: the agent exits 1 (nothing on
// stderr) instead of growing its memory, as serve does.
func TestStalledClient(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		response(repeat(strings.Repeat("x", 1000), 8000)),
	}})
	cmd := exec.Command(clienttest.Binary(t), "acp")
	cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	r := bufio.NewReader(stdout)
	send := func(s string) { _, _ = io.WriteString(stdin, s+"\n") }
	read := func() map[string]any {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var m map[string]any
		_ = json.Unmarshal([]byte(line), &m)
		return m
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	read()
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + quote(ws.Cwd) + `,"mcpServers":[]}}`)
	sid := read()["result"].(map[string]any)["sessionId"].(string)
	send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"flood"}]}}`)
	// From now on nobody reads.
	select {
	case err := <-exited:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(guard):
		t.Fatal("a stalled client kept the agent running")
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q", stderr.String())
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

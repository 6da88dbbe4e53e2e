package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

type (
	step  = clienttest.Step
	run   = clienttest.Run
	entry = clienttest.Entry
)

var text, toolCall, shell = clienttest.Text, clienttest.ToolCall, clienttest.Shell

// script writes a fixture script of the given responses into dir and
// returns the settings that select the fixture provider with it.
func script(t testing.TB, dir string, responses ...[]step) string {
	t.Helper()
	return clienttest.FixtureSettings + clienttest.WriteScript(t, filepath.Join(dir, "script.json"), responses...)
}

// mcpServer is the settings table of the test MCP server under name, with
// extra environment entries for it.
func mcpServer(name string, env map[string]string) string {
	var b strings.Builder
	b.WriteString("\n[mcp_servers." + name + "]\ncommand = " + clienttest.Quote(mcpServerBin) + "\n")
	if len(env) > 0 {
		b.WriteString("env = {")
		first := true
		for k, v := range env {
			if !first {
				b.WriteString(", ")
			}
			first = false
			b.WriteString(k + " = " + clienttest.Quote(v))
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// hook is one [[hooks]] entry.
func hook(event, matcher, command string) string {
	return "\n[[hooks]]\nevent = " + clienttest.Quote(event) + "\nmatcher = " + clienttest.Quote(matcher) + "\ncommand = " + clienttest.Quote(command) + "\n"
}

// child is one running, initialized magi-code serve --stdio process.
type child struct{ *clienttest.Child }

// spawnWith starts a child in ws initialized with every version 1
// capability and the optional capability optional, and fails unless the
// child advertises it.
func spawnWith(t testing.TB, ws *clienttest.Workspace, optional string) *child {
	t.Helper()
	caps := append(slices.Clone(clienttest.AllCapabilities), optional)
	ch := &child{ws.Spawn(t, client.Options{Env: ws.Env()})}
	var init struct {
		Capabilities []string `json:"capabilities"`
	}
	ch.Result("initialize", map[string]any{"required_capabilities": caps}, &init)
	if !slices.Contains(init.Capabilities, optional) {
		t.Fatalf("capabilities %q", init.Capabilities)
	}
	return ch
}

// newChild makes a workspace with the given global settings and starts an
// initialized child in it.
func newChild(t testing.TB, settings string, opts client.Options) *child {
	t.Helper()
	ws := clienttest.NewWorkspace(t, settings)
	return startChild(t, ws, opts)
}

func startChild(t testing.TB, ws *clienttest.Workspace, opts client.Options) *child {
	t.Helper()
	return &child{ws.StartChild(t, opts)}
}

// waitIdle polls status until the child reports idle.
func waitIdle(ch *child) {
	ch.T.Helper()
	clienttest.WaitFor(ch.T, "status idle", func() bool {
		var s struct {
			State string `json:"state"`
		}
		ch.Result("status", nil, &s)
		return s.State == "idle"
	})
}

// history pages through the whole projection at the run's terminal
// revision (clienttest's History, with its page checks) and returns its
// entries.
func (ch *child) history(sessionID string, r run) []entry {
	ch.T.Helper()
	if r.Finished.Revision == nil {
		ch.T.Fatalf("run.finished without revision: %s", r.Terminal())
	}
	entries, _, _ := ch.History(sessionID, *r.Finished.Revision)
	return entries
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

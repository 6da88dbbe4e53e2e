package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
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

// shellCalls are tool calls of the shell tool, one per command.
func shellCalls(commands ...string) []map[string]any {
	calls := make([]map[string]any, len(commands))
	for i, c := range commands {
		calls[i] = map[string]any{"name": "shell", "arguments": map[string]any{"command": c}}
	}
	return calls
}

// callScript writes in dir a fixture provider script whose responses each
// make one of calls, in order, then answer "done", and returns its path.
func callScript(t testing.TB, dir string, calls []map[string]any) string {
	t.Helper()
	var script struct {
		Responses []map[string]any `json:"responses"`
	}
	for _, c := range calls {
		script.Responses = append(script.Responses, map[string]any{"steps": []any{map[string]any{"tool_call": c}}})
	}
	script.Responses = append(script.Responses, map[string]any{"steps": []any{map[string]any{"text": "done"}}})
	b, err := json.Marshal(script)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "script.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fixtureAuto is global settings that select the fixture provider playing
// script, under approval = "auto", then extra.
func fixtureAuto(script, extra string) string {
	return "provider = \"fixture\"\nmodel = \"fixture-model\"\n\n[providers.fixture]\nscript = " +
		clienttest.Quote(script) + "\n\n[tools]\napproval = \"auto\"\n" + extra
}

// skipUnconfined shuts ch down and skips the test where the OS sandbox is
// not in force (status sandbox).
func skipUnconfined(t *testing.T, ch *child) {
	t.Helper()
	var st struct {
		Sandbox string `json:"sandbox"`
	}
	if ch.Result("status", nil, &st); st.Sandbox != "workspace-write" {
		ch.Shutdown()
		t.Skipf("no OS sandbox here (status sandbox %q)", st.Sandbox)
	}
}

// confinedTurn runs one turn of calls in s's workspace under approval =
// "auto" with the fixture provider (skipped where the OS sandbox is not in
// force), wants it completed with nothing asked, and shuts the child down.
func (s *readScene) confinedTurn(t *testing.T, calls []map[string]any) {
	t.Helper()
	unaskedTurn(t, s.start(t, fixtureAuto(callScript(t, s.root, calls), "")))
}

// unaskedTurn runs one turn on ch, started with a confined script
// (skipped where the OS sandbox is not in force), wants it completed with
// nothing asked, and shuts ch down.
func unaskedTurn(t *testing.T, ch *child) {
	t.Helper()
	skipUnconfined(t, ch)
	r := ch.Turn(ch.Create().SessionID, "go")
	r.WantOutcome(t, "completed", "")
	if n := r.Count(protocol.EventApprovalRequested); n != 0 {
		t.Errorf("%d approval requests under auto; want 0", n)
	}
	ch.Shutdown()
}

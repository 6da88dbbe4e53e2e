package clienttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Step is one step of a fixture provider response (docs/configuration.md, The fixture provider).
type Step map[string]any

// Text is one assistant text delta.
func Text(s string) Step { return Step{"text": s} }

// Repeat is the same text delta n times.
func Repeat(s string, n int) Step { return Step{"text": s, "repeat": n} }

// SleepMs waits n milliseconds, cancellably.
func SleepMs(n int) Step { return Step{"sleep_ms": n} }

// ToolCall asks for tool name with args ({} when nil).
func ToolCall(name string, args map[string]any) Step {
	if args == nil {
		args = map[string]any{}
	}
	return Step{"tool_call": map[string]any{"name": name, "arguments": args}}
}

// Shell asks for the shell tool with command.
func Shell(command string) Step { return ToolCall("shell", map[string]any{"command": command}) }

// RunCode asks for Code Mode's run_code tool with the program code.
func RunCode(code string) Step { return ToolCall("run_code", map[string]any{"code": code}) }

// Response is one provider response: its steps in order.
func Response(steps ...Step) []Step { return steps }

// Quote returns s as a JSON string, which is also a TOML basic string
// (JSON string escaping is a subset of TOML's).
func Quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// WriteScript writes the fixture script of responses, one per provider
// call, to path, and returns the settings table that selects it.
func WriteScript(t testing.TB, path string, responses ...[]Step) string {
	t.Helper()
	type response struct {
		Steps []Step `json:"steps"`
	}
	var script struct {
		Responses []response `json:"responses"`
	}
	for _, r := range responses {
		script.Responses = append(script.Responses, response{Steps: r})
	}
	b, err := json.Marshal(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return "\n[providers.fixture]\nscript = " + Quote(path) + "\n"
}

// Fixture describes the global settings of NewFixtureWorkspace.
type Fixture struct {
	// Top holds top-level settings keys (context_window = 9000); they go
	// before every table.
	Top string
	// Responses is the fixture script, one response per provider call;
	// none: the fixture echoes.
	Responses [][]Step
	// Approval is tools.approval ("ask", "auto"); empty: the default.
	Approval string
	// Extra is TOML appended last (tables such as [tools.code_mode]).
	Extra string
}

// NewFixtureWorkspace makes a workspace whose global settings select the
// fixture provider as f says. The script, if any, is script.json beside
// MC_HOME.
func NewFixtureWorkspace(t testing.TB, f Fixture) *Workspace {
	t.Helper()
	w := NewWorkspace(t, "")
	settings := FixtureSettings + f.Top + "\n"
	if len(f.Responses) > 0 {
		settings += WriteScript(t, w.ScriptPath(), f.Responses...)
	}
	if f.Approval != "" {
		settings += "\n[tools]\napproval = " + Quote(f.Approval) + "\n"
	}
	settings += "\n" + f.Extra + "\n"
	w.WriteFile(t, filepath.Join(w.Home, "settings.toml"), settings)
	return w
}

// ScriptPath is where NewFixtureWorkspace writes the fixture script;
// rewrite it with WriteScript to change the script of later children.
func (w *Workspace) ScriptPath() string { return filepath.Join(filepath.Dir(w.Home), "script.json") }

// SessionFile is the JSONL file of session id under MC_HOME (docs/configuration.md).
func SessionFile(home, id string) string { return filepath.Join(home, "sessions", id+".jsonl") }

// FileExists reports whether path exists.
func FileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

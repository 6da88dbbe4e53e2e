package codemode

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// child is one running magi-code serve --stdio process.
type child struct{ *clienttest.Child }

type (
	step = clienttest.Step
	run  = clienttest.Run
)

var (
	text, sleepMs, response = clienttest.Text, clienttest.SleepMs, clienttest.Response
	call, runCode           = clienttest.ToolCall, clienttest.RunCode
)

// newWorkspace makes a workspace whose global settings select the fixture
// provider with the given script responses (none: echo), plus top (top-level
// keys such as context_window) and tables (TOML tables such as
// [tools.code_mode]).
func newWorkspace(t testing.TB, top, tables string, responses ...[]step) *clienttest.Workspace {
	t.Helper()
	return clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Top: top, Responses: responses, Extra: tables})
}

// start starts a child in ws and initializes it.
func start(t testing.TB, ws *clienttest.Workspace, opts client.Options) *child {
	t.Helper()
	return &child{ws.StartChild(t, opts)}
}

// mustRead returns a file's content, failing the test when it cannot.
func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", filepath.Base(path), err)
	}
	return string(b)
}

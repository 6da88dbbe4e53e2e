package audit

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// uuidRE is a canonical lower-case UUID.
var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

type (
	step         = clienttest.Step
	entry        = clienttest.Entry
	statusResult = clienttest.StatusResult
)

var text, sleepMs, tool, shell = clienttest.Text, clienttest.SleepMs, clienttest.ToolCall, clienttest.Shell

// fixtureWorkspace makes a workspace whose global settings select the
// fixture provider with the given script responses (none: echo), the
// approval mode (none: default) and extra TOML appended.
func fixtureWorkspace(t testing.TB, approval, extra string, responses ...[]step) *clienttest.Workspace {
	t.Helper()
	return clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: approval, Extra: extra, Responses: responses})
}

// child is one running magi-code serve --stdio process.
type child struct{ *clienttest.Child }

// spawn starts a child in ws without initializing it.
func spawn(t testing.TB, ws *clienttest.Workspace, opts client.Options) *child {
	t.Helper()
	return &child{ws.Spawn(t, opts)}
}

// start starts a child and initializes it, requiring success.
func start(t testing.TB, ws *clienttest.Workspace, opts client.Options) *child {
	t.Helper()
	return &child{ws.StartChild(t, opts)}
}

func deref(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// kinds lists the kind of every entry (every part).
func kinds(es []entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Kind)
	}
	return out
}

// durable runs one turn in a fresh child of ws and shuts it down; it
// returns the durable session ID.
func durable(t testing.TB, ws *clienttest.Workspace, prompt string) string {
	t.Helper()
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	r := ch.Turn(s.SessionID, prompt)
	if r.Finished.Persistence != "durable" {
		t.Fatalf("run.finished %+v", r.Finished)
	}
	ch.Shutdown()
	return s.SessionID
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

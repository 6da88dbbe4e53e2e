package main

import (
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol/schemacheck"
)

// inProcess points the process environment at ws (the pipeline reads
// MC_HOME, HOME and the cwd from it, as serve does) and connects.
func inProcess(t *testing.T, ws *clienttest.Workspace) (*clienttest.Child, func() int) {
	t.Setenv("MC_HOME", ws.Home)
	t.Setenv("HOME", filepath.Dir(ws.Home))
	t.Chdir(ws.Cwd)
	c, end := connect(client.Options{CheckFrame: schemacheck.Validate})
	ended := false
	t.Cleanup(func() {
		if !ended {
			end()
		}
	})
	return &clienttest.Child{T: t, WS: ws, C: c}, func() int { ended = true; return end() }
}

// The terminal session runs the serve pipeline in this process: the same
// protocol, checked frame by frame against the schema, a turn with an
// approval, and a drained shutdown that ends the pipeline with exit 0.
func TestInProcessSession(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
		Responses: [][]clienttest.Step{
			clienttest.Response(clienttest.Shell("echo in-process")),
			clienttest.Response(clienttest.Text("done")),
		},
	})
	ch, end := inProcess(t, ws)
	ch.Result("initialize", map[string]any{"required_capabilities": clienttest.AllCapabilities}, nil)
	s := ch.Create()
	runID, admission := ch.StartTurn(s.SessionID, "run it")
	var seen []client.Event
	req := ch.UntilNamed(&seen, runID, "approval.requested")
	var a struct {
		ApprovalID string `json:"approval_id"`
	}
	if err := req.Decode(&a); err != nil {
		t.Fatal(err)
	}
	ch.Answer(s.SessionID, runID, a.ApprovalID, true)
	run := ch.Finish(s.SessionID, runID, admission, seen)
	if run.Finished.Outcome != "completed" || run.Reply() != "done" {
		t.Fatalf("run = %s %q; want completed \"done\"", run.Finished.Outcome, run.Reply())
	}
	ch.Shutdown()
	if code := end(); code != exitOK {
		t.Fatalf("pipeline exit = %d; want %d after a drained shutdown", code, exitOK)
	}
}

// EOF on the in-process input (the terminal closes the session) drains and
// ends the pipeline with 0, like EOF on serve's stdin.
func TestInProcessEOF(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	ch, end := inProcess(t, ws)
	ch.Result("initialize", map[string]any{"required_capabilities": clienttest.AllCapabilities}, nil)
	if code := end(); code != exitOK {
		t.Fatalf("pipeline exit = %d; want %d after EOF", code, exitOK)
	}
}

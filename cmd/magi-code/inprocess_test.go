package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/protocol/schemacheck"
)

// inProcess points the process environment at ws (the pipeline reads
// MC_HOME, HOME and the cwd from it, as serve does) and connects.
func inProcess(t *testing.T, ws *clienttest.Workspace) (*clienttest.Child, func() int) {
	t.Setenv("MC_HOME", ws.Home)
	t.Setenv("HOME", filepath.Dir(ws.Home))
	t.Chdir(ws.Cwd)
	c, end := connect(client.Options{CheckFrame: schemacheck.Validate}, "")
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

// The terminal session is Mission Control, not the local agent: its hooks
// read "invocation":"mission_control", and so does every line of its
// diagnostic log.
func TestInProcessIsMissionControl(t *testing.T) {
	stop := filepath.Join(t.TempDir(), "stop.json")
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
		Extra: "\n[[hooks]]\nevent = \"stop\"\ncommand = " + clienttest.Quote("cat > "+clienttest.Quote(stop)) + "\n",
	})
	ch, end := inProcess(t, ws)
	ch.Result("initialize", map[string]any{"required_capabilities": clienttest.AllCapabilities}, nil)
	ch.Turn(ch.Create().SessionID, "hello").WantOutcome(t, "completed", "")
	ch.Shutdown()
	if code := end(); code != exitOK {
		t.Fatalf("pipeline exit = %d; want %d", code, exitOK)
	}
	// The hook is `cat`, which a Windows cmd.exe does not have: there only
	// the log is checked.
	if runtime.GOOS != "windows" {
		var in map[string]any
		if b, err := os.ReadFile(stop); err != nil || json.Unmarshal(b, &in) != nil || in["invocation"] != protocol.InvocationMissionControl {
			t.Fatalf("stop hook input %s (%v); want invocation %q", b, err, protocol.InvocationMissionControl)
		}
	}
	logs, err := filepath.Glob(filepath.Join(ws.Home, "logs", "serve-*.log"))
	if err != nil || len(logs) != 1 {
		t.Fatalf("log files %v, %v; want one", logs, err)
	}
	raw, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.SplitSeq(strings.TrimSuffix(string(raw), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["invocation"] != protocol.InvocationMissionControl {
			t.Errorf("log line %.200s (%v); want invocation %q", l, err, protocol.InvocationMissionControl)
		}
	}
}

package runner

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/everything"
	"github.com/magi-code/magi-code/protocol"
)

// mcpWorkspace is a workspace whose global settings run the fixture with
// the given responses, the test MCP server as "srv" (recording its calls
// in calls), tools.approval and extra settings.
func mcpWorkspace(t *testing.T, approval, extra string, responses ...[]step) (ws *clienttest.Workspace, calls string) {
	t.Helper()
	dir := t.TempDir()
	calls = filepath.Join(dir, "calls.txt")
	settings := script(t, dir, responses...) + "\n[tools]\napproval = " + clienttest.Quote(approval) + "\n" +
		mcpServer("srv", map[string]string{"MCP_CALLS_FILE": calls}) + extra
	return clienttest.NewWorkspace(t, settings), calls
}

// TestMCPReadOnlyTool: a read-only MCP tool runs without approval, even
// under approval = "ask"; its activity starts and completes with a safe
// summary that never quotes the result; history shows the activity; the
// model's next answer follows.
func TestMCPReadOnlyTool(t *testing.T) {
	t.Parallel()
	ws, calls := mcpWorkspace(t, "ask", "",
		[]step{text("Looking it up."), toolCall("mcp__srv__lookup", map[string]any{"key": "k1"})},
		[]step{text("Found it.")})
	ch := startChild(t, ws, client.Options{RecordFrames: true})
	sid := ch.Create().SessionID
	r := ch.Turn(sid, "look k1 up")
	r.WantOutcome(t, "completed", "")
	if r.Finished.Persistence != "durable" {
		t.Fatalf("persistence %s", r.Finished.Persistence)
	}
	if n := r.Count(protocol.EventApprovalRequested); n != 0 {
		t.Fatalf("%d approvals for a read-only MCP tool", n)
	}
	acts := r.Activities
	if len(acts) != 2 || acts[0].State != "started" || acts[1].State != "completed" ||
		acts[0].ActivityID != acts[1].ActivityID {
		t.Fatalf("activities %+v; want one started then completed", acts)
	}
	for _, a := range acts {
		if a.Kind != "tool" || a.Name != "mcp__srv__lookup" || a.Summary == "" || len(a.Summary) > protocol.SummaryBytes {
			t.Fatalf("activity %+v", a)
		}
	}
	if got := r.Reply(); got != "Looking it up.Found it." {
		t.Fatalf("reply %q", got)
	}
	if got := readFile(t, calls); got != "lookup k1\n" {
		t.Fatalf("server calls %q", got)
	}
	entries := ch.history(sid, r)
	if got, want := strings.Join(clienttest.Kinds(entries), " "), "user assistant activity assistant"; got != want {
		t.Fatalf("history kinds %q; want %q (%+v)", got, want, entries)
	}
	// docs/protocol.md, Run events: activities carry "no raw params/results"; history "Tool
	// summaries show completion/failure or partial started state, never raw
	// result bodies".
	for _, f := range ch.C.Frames() {
		if bytes.Contains(f.Raw, []byte("MCP-RESULT-BODY")) {
			t.Fatalf("frame %d quotes the tool's result: %s", f.Seq, f.Raw)
		}
	}
	ch.Shutdown()
}

// TestMCPMutatingToolApproval: a tool the server does not mark read-only
// asks for approval under approval = "ask"; a denied call never reaches the
// server, an allowed one does.
func TestMCPMutatingToolApproval(t *testing.T) {
	t.Parallel()
	ws, calls := mcpWorkspace(t, "ask", "",
		[]step{toolCall("mcp__srv__store", map[string]any{"value": "denied-value"})}, []step{text("not stored")},
		[]step{toolCall("mcp__srv__store", map[string]any{"value": "allowed-value"})}, []step{text("stored")})
	ch := startChild(t, ws, client.Options{})
	sid := ch.Create().SessionID
	for _, allow := range []bool{false, true} {
		runID, adm := ch.StartTurn(sid, "store something")
		var evs []client.Event
		ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
		var req struct {
			ApprovalID  string `json:"approval_id"`
			Summary     string `json:"summary"`
			ExpiresInMs int64  `json:"expires_in_ms"`
		}
		if err := ev.Decode(&req); err != nil {
			t.Fatal(err)
		}
		if req.ApprovalID == "" || req.Summary == "" || len(req.Summary) > protocol.SummaryBytes ||
			strings.Contains(req.Summary, "-value") || req.ExpiresInMs != 60_000 {
			t.Fatalf("approval.requested %s", ev.Data)
		}
		if strings.Contains(readFile(t, calls), "store") {
			t.Fatal("the tool ran before its approval")
		}
		ch.Answer(sid, runID, req.ApprovalID, allow)
		r := ch.Finish(sid, runID, adm, evs)
		r.WantOutcome(t, "completed", "")
		got := readFile(t, calls)
		if strings.Contains(got, "denied-value") {
			t.Fatalf("a denied call reached the server: %q", got)
		}
		if allow && got != "store allowed-value\n" {
			t.Fatalf("server calls after allowing %q", got)
		}
		acts := r.Activities
		if last := acts[len(acts)-1]; last.Name != "mcp__srv__store" || (allow && last.State != "completed") || (!allow && last.State != "failed") {
			t.Fatalf("allow=%v: activities %+v", allow, acts)
		}
	}
	ch.Shutdown()
}

// TestMCPHangCancelled: an MCP tool that hangs is cancelled by turn.cancel
// and the run finishes cancelled; the server sees the cancellation, stays
// connected and serves the next turn.
func TestMCPHangCancelled(t *testing.T) {
	t.Parallel()
	ws, calls := mcpWorkspace(t, "auto", "",
		[]step{toolCall("mcp__srv__hang", nil)},
		[]step{toolCall("mcp__srv__lookup", map[string]any{"key": "after"})}, []step{text("still here")})
	ch := startChild(t, ws, client.Options{})
	sid := ch.Create().SessionID
	runID, adm := ch.StartTurn(sid, "hang")
	var evs []client.Event
	ch.UntilNamed(&evs, runID, protocol.EventActivity)
	clienttest.WaitFor(t, "the server to receive the call", func() bool { return strings.Contains(readFile(t, calls), "hang") })
	var res struct {
		CancellationRequested bool `json:"cancellation_requested"`
	}
	ch.Result("turn.cancel", map[string]string{"session_id": sid, "run_id": runID}, &res)
	if !res.CancellationRequested {
		t.Fatal("turn.cancel not acknowledged")
	}
	r := ch.Finish(sid, runID, adm, evs)
	r.WantOutcome(t, "cancelled", "")
	// The cancelled call's activity ends: started, then failed (the protocol's
	// states have no "cancelled"), under the same ID.
	acts := r.Activities
	if len(acts) != 2 || acts[0].State != "started" || acts[1].State != "failed" ||
		acts[0].ActivityID != acts[1].ActivityID || acts[1].Name != "mcp__srv__hang" || acts[1].Kind != "tool" {
		t.Fatalf("activities after cancel %+v; want the hang call started, then failed", acts)
	}

	// The cancellation reaches the server (notifications/cancelled): its
	// handler sees its context end.
	clienttest.WaitFor(t, "the server to see the cancellation", func() bool { return strings.Contains(readFile(t, calls), "hang cancelled") })
	r = ch.Turn(sid, "look up after the cancel")
	r.WantOutcome(t, "completed", "")
	if r.Reply() != "still here" || !strings.Contains(readFile(t, calls), "lookup after") {
		t.Fatalf("after the cancel: reply %q, calls %q", r.Reply(), readFile(t, calls))
	}
	ch.Shutdown()
}

// TestMCPResultBound: a tool returning 1 MiB reaches the model bounded (the
// OpenAI provider against a local server that records what the model sees).
func TestMCPResultBound(t *testing.T) {
	t.Parallel()
	llm := newLLMServer(t, oaTurn(content{toolName: "mcp__srv__big", toolArgs: []string{"{}"}, after: []string{"big"}})...)
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls.txt")
	ws := clienttest.NewWorkspace(t, openaiFormat.settings(llm.srv.URL)+
		mcpServer("srv", map[string]string{"MCP_CALLS_FILE": calls}))
	ch := startChild(t, ws, client.Options{Env: append(ws.Env(), "OPENAI_API_KEY=sk-test-bound")})
	sid := ch.Create().SessionID
	r := ch.Turn(sid, "fetch the big thing")
	r.WantOutcome(t, "completed", "")
	if got := readFile(t, calls); got != "big\n" {
		t.Fatalf("server calls %q", got)
	}
	reqs := llm.recorded()
	if len(reqs) != 2 {
		t.Fatalf("%d provider requests", len(reqs))
	}
	res := toolResults(t, reqs[1].Body)
	if len(res) != 1 {
		t.Fatalf("tool results %d", len(res))
	}
	// The bound is the tools' default output bound (64 KiB), with a note
	// that says the model saw a part.
	if n := len(res[0]); n > 64<<10 || n < 32<<10 || !strings.Contains(res[0], "truncated") {
		t.Fatalf("the model saw %d bytes of a 1 MiB result (ending %q)", n, res[0][max(0, n-80):])
	}
	ch.Shutdown()
}

// TestMCPProjectServerApproval: a server the project file defines does not
// start until `magi-code mcp approve NAME` records it; then its tools work.
func TestMCPProjectServerApproval(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	envFile := filepath.Join(dir, "server.env")
	ws := clienttest.NewWorkspace(t, script(t, dir,
		[]step{toolCall("mcp__proj__lookup", map[string]any{"key": "p"})}, []step{text("project server answered")}))
	ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"), mcpServer("proj", map[string]string{"MCP_ENV_FILE": envFile}))

	ch := startChild(t, ws, client.Options{IgnoreEvents: true})
	if clienttest.FileExists(envFile) {
		t.Fatal("an unapproved project server started")
	}
	ch.Shutdown()

	ctx, cancel := context.WithTimeout(context.Background(), clienttest.HangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, clienttest.Binary(t), "mcp", "approve", "proj")
	cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcp approve: %v\n%s", err, out)
	}

	ch = startChild(t, ws, client.Options{})
	if !clienttest.FileExists(envFile) {
		t.Fatal("the approved project server did not start")
	}
	sid := ch.Create().SessionID
	r := ch.Turn(sid, "ask the project server")
	r.WantOutcome(t, "completed", "")
	acts := r.Activities
	if len(acts) != 2 || acts[1].State != "completed" || acts[1].Name != "mcp__proj__lookup" {
		t.Fatalf("activities %+v", acts)
	}
	ch.Shutdown()
}

// TestMCPServerEverything calls the echo tool of the reference server from
// the npm registry, when node and the package are present.
func TestMCPServerEverything(t *testing.T) {
	t.Parallel()
	node, entry := everything.Entry(t)
	dir := t.TempDir()
	settings := script(t, dir,
		[]step{toolCall("mcp__everything__echo", map[string]any{"message": "hello everything"})}, []step{text("echoed")}) +
		"\n[tools]\napproval = \"auto\"\n\n[mcp_servers.everything]\ncommand = " + clienttest.Quote(node) +
		"\nargs = [" + clienttest.Quote(entry) + ", \"stdio\"]\n"
	ch := newChild(t, settings, client.Options{})
	sid := ch.Create().SessionID
	r := ch.Turn(sid, "echo through the reference server")
	r.WantOutcome(t, "completed", "")
	acts := r.Activities
	if len(acts) != 2 || acts[0].Name != "mcp__everything__echo" || acts[1].State != "completed" {
		t.Fatalf("activities %+v", acts)
	}
	if r.Reply() != "echoed" {
		t.Fatalf("reply %q", r.Reply())
	}
	ch.Shutdown()
}

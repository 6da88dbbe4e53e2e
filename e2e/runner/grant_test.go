package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// grantTurn runs one turn whose tool calls ask for approval and answers
// each request with the next of answers ("once", "session" or "deny"). It
// returns the session_grant of each request, and fails if the turn asks
// more or fewer times than there are answers.
func grantTurn(t *testing.T, ch *child, sid, prompt string, answers ...string) []bool {
	t.Helper()
	runID, adm := ch.StartTurn(sid, prompt)
	var evs []client.Event
	var grantable []bool
	for _, a := range answers {
		ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
		d, err := ev.Fields()
		if err != nil {
			t.Fatal(err)
		}
		grantable = append(grantable, d.SessionGrant)
		params := map[string]any{"session_id": sid, "run_id": runID, "approval_id": d.ApprovalID, "allow": a != "deny"}
		if a != "deny" {
			params["scope"] = a
		}
		if r := ch.Call("approval.answer", params); r.Error != nil || string(r.Result) != `{"recorded":true}` {
			t.Fatalf("%s: approval.answer %s", prompt, r.Raw)
		}
	}
	r := ch.Finish(sid, runID, adm, evs)
	r.WantOutcome(t, "completed", "")
	if n := r.Count(protocol.EventApprovalRequested); n != len(answers) {
		t.Fatalf("%s: %d approval requests; want %d", prompt, n, len(answers))
	}
	return grantable
}

// TestApprovalSessionCapability: through serve --stdio, a client that
// requires approval.session sees it advertised and session_grant on every
// approval request (every frame checked strictly). An answer with scope
// "session" grants that exact command: the same command later in the
// session runs without asking; another spelling of it, and a longer
// command that begins with it, ask. A read outside the workspace (a
// protection forces it to ask) is never grantable: session_grant false,
// and answered for the session it still asks the next time. Reopening the
// session, or a new child, starts without grants: nothing is stored.
func TestApprovalSessionCapability(t *testing.T) {
	t.Parallel()
	const cmd = "echo granted >> log.txt"
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	read := clienttest.ToolCall("read_file", map[string]any{"path": outside})
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{
		clienttest.Response(shell(cmd)), clienttest.Response(text("one")),
		clienttest.Response(shell(cmd)), clienttest.Response(text("two")),
		clienttest.Response(shell("echo  granted >> log.txt")), clienttest.Response(shell(cmd + "; echo more >> log.txt")), clienttest.Response(text("three")),
		clienttest.Response(read), clienttest.Response(read), clienttest.Response(text("four")),
		// after reopening the session
		clienttest.Response(shell(cmd)), clienttest.Response(text("five")),
		// a new child
		clienttest.Response(shell(cmd)), clienttest.Response(text("six")),
	}})
	ch := spawnWith(t, ws, protocol.CapabilityApprovalSession)
	sid := ch.Create().SessionID

	if g := grantTurn(t, ch, sid, "first", "session"); !g[0] {
		t.Fatal("a plain shell command was not grantable")
	}
	grantTurn(t, ch, sid, "the same again") // runs without asking
	grantTurn(t, ch, sid, "other spellings", "deny", "deny")
	if g := grantTurn(t, ch, sid, "outside reads", "session", "once"); g[0] || g[1] {
		t.Fatalf("a protected read was grantable: %v", g)
	}
	log, err := os.ReadFile(filepath.Join(ws.Cwd, "log.txt"))
	if err != nil || string(log) != "granted\ngranted\n" {
		t.Fatalf("log.txt %q, %v; want the granted command run twice, the others never", log, err)
	}

	ch.Open(sid)
	grantTurn(t, ch, sid, "after reopening", "deny")
	ch.Shutdown()

	ch = spawnWith(t, ws, protocol.CapabilityApprovalSession)
	ch.Open(sid)
	grantTurn(t, ch, sid, "a new child", "deny")
	ch.Shutdown()
}

// TestApprovalSessionNotRequired: a client that does not require
// approval.session sees exactly version 1: no session_grant (its strict
// reader would fail on one), and an answer with "scope" is invalid_params,
// which leaves the approval open for a version 1 answer.
func TestApprovalSessionNotRequired(t *testing.T) {
	t.Parallel()
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{
		clienttest.Response(shell("echo x >> log.txt")), clienttest.Response(text("one")),
		clienttest.Response(shell("echo x >> log.txt")), clienttest.Response(text("two")),
	}})
	ch := &child{ws.StartChild(t, client.Options{Env: ws.Env()})}
	sid := ch.Create().SessionID
	for _, prompt := range []string{"first", "second"} {
		runID, adm := ch.StartTurn(sid, prompt)
		var evs []client.Event
		ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
		if strings.Contains(string(ev.Data), "session_grant") {
			t.Fatalf("session_grant without the capability: %s", ev.Data)
		}
		d, _ := ev.Fields()
		ch.WantError("approval.answer", map[string]any{"session_id": sid, "run_id": runID, "approval_id": d.ApprovalID, "allow": true, "scope": "session"}, protocol.CodeInvalidParams)
		ch.Answer(sid, runID, d.ApprovalID, true)
		ch.Finish(sid, runID, adm, evs).WantOutcome(t, "completed", "")
	}
	ch.Shutdown()
}

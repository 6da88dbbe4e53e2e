package runner

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestApprovalRequestCapability: through serve --stdio, a client that
// requires approval.request gets the whole request with every approval
// (every frame checked strictly): a command past the summary's bound
// whole, what follows 1,000 spaces included, with request_truncated
// false; a secret in it redacted; a command past the request's own bound
// cut at 16,000 bytes (or 32,000 escaped) with request_truncated true. A
// client that does not require it sees neither field.
func TestApprovalRequestCapability(t *testing.T) {
	t.Parallel()
	const token = "ghp_" + "Zq8Xw3Lm9Vt2Rk7Np4Hs6Jd1Fb5Gc0Ya8Ue3"
	long := "echo harmless" + strings.Repeat(" ", 1000) + "; touch pwned"
	secret := "echo " + strings.Repeat("x", 900) + " " + token + " ; echo end"
	huge := "echo " + strings.Repeat("a", 20000) + " ; touch huge"
	controls := "echo " + strings.Repeat("\x01", 9000) + " ; touch ctl"
	var steps [][]clienttest.Step
	for _, c := range []string{long, secret, huge, controls, long} {
		steps = append(steps, clienttest.Response(shell(c)), clienttest.Response(text("done")))
	}
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: steps})
	ch := spawnWith(t, ws, protocol.CapabilityApprovalRequest)
	sid := ch.Create().SessionID
	ask := func(ch *child, prompt string) (client.EventData, string) {
		t.Helper()
		runID, adm := ch.StartTurn(sid, prompt)
		var evs []client.Event
		ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
		d, err := ev.Fields()
		if err != nil {
			t.Fatal(err)
		}
		ch.Answer(sid, runID, d.ApprovalID, false)
		ch.Finish(sid, runID, adm, evs).WantOutcome(t, "completed", "")
		return d, string(ev.Data)
	}
	d, _ := ask(ch, "long")
	if !strings.HasSuffix(d.Summary, "...") || d.Request != "shell: "+long || d.RequestTruncated {
		t.Fatalf("long command: summary %d bytes, request %q (truncated %v); want the whole command", len(d.Summary), d.Request, d.RequestTruncated)
	}
	d, _ = ask(ch, "secret")
	if strings.Contains(d.Request, token[:12]) || !strings.HasSuffix(d.Request, " ; echo end") || d.RequestTruncated {
		t.Fatalf("secret: request %q; want it whole and redacted", d.Request)
	}
	d, _ = ask(ch, "huge")
	if !d.RequestTruncated || len(d.Request) > protocol.ApprovalRequestBytes || len(d.Request) < protocol.ApprovalRequestBytes-4 || !strings.HasPrefix(d.Request, "shell: echo aaa") {
		t.Fatalf("huge: request of %d bytes, truncated %v; want cut at %d", len(d.Request), d.RequestTruncated, protocol.ApprovalRequestBytes)
	}
	d, _ = ask(ch, "controls")
	if !d.RequestTruncated || len(d.Request) > protocol.ApprovalRequestEscapedBytes/6+16 {
		t.Fatalf("controls: request of %d bytes, truncated %v; want the escaped bound", len(d.Request), d.RequestTruncated)
	}
	ch.Shutdown()

	strict := &child{ws.StartChild(t, client.Options{Env: ws.Env()})}
	sid = strict.Open(sid).SessionID
	if _, raw := ask(strict, "version 1"); strings.Contains(raw, `"request"`) || strings.Contains(raw, "request_truncated") {
		t.Fatalf("request without the capability: %s", raw)
	}
	strict.Shutdown()
}

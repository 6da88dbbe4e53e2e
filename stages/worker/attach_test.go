package worker

import (
	"testing"
	"time"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/dispatch"
)

// TestAttachReleasesPreviousSession: attaching another session releases the
// previous one's leases (another child may then open it), and reopening the
// attached session keeps it usable (docs/protocol.md, session.open).
func TestAttachReleasesPreviousSession(t *testing.T) {
	p, events, first := startedPool(t, "", "")
	runTurn(t, p, events, first, "hi") // durable now
	sessions := p.runtime().runner.SessionsDir()

	second := op(t, p, dispatch.StartOp{ID: "c2", Op: dispatch.OpCreate}).Attached
	other := history.NewStore(sessions, p.runtime().runner.Cwd(), time.Now)
	a, _, code := other.Open(first, nil)
	if code != "" {
		t.Fatalf("another child opening the detached session: %q; want it free", code)
	}
	a.Close()

	// Reopen the attached session (same child): it stays usable.
	if d := op(t, p, dispatch.StartOp{ID: "o1", Op: dispatch.OpOpen, Open: dispatch.OpenParams{SessionID: second}}); d.Attached != second {
		t.Fatalf("reopen = %+v", d)
	}
	evs := runTurn(t, p, events, second, "again")
	if last := evs[len(evs)-1]; last.Outcome != "completed" || last.Persistence != "durable" {
		t.Fatalf("turn after reopening the attached session: %+v", last)
	}
	if _, _, code := other.Open(second, nil); code != protocol.CodeSessionBusy {
		t.Fatalf("another child opening the attached session: %q; want session_busy", code)
	}
}

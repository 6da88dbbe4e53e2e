package worker

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/dispatch"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// answerNow answers and, when the reply won, delivers it at once.
func answerNow(a *approvals, id string, allow bool) protocol.Code {
	code, deliver := a.answer(id, answered(dispatch.AnswerParams{Allow: allow}))
	if code == "" {
		deliver()
	}
	return code
}

func TestApprovalsOneWinner(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	a := newApprovals(clk.now)
	ap := a.add("a1")
	if code := answerNow(a, "nope", true); code != protocol.CodeStaleApproval {
		t.Fatalf("answer(unknown) = %q; want stale_approval", code)
	}
	code, deliver := a.answer("a1", runner.Denied)
	if code != "" {
		t.Fatalf("first answer = %q; want recorded", code)
	}
	if code := answerNow(a, "a1", true); code != protocol.CodeStaleApproval {
		t.Fatalf("second answer = %q; want stale_approval", code)
	}
	select {
	case <-ap.reply:
		t.Fatal("the reply reached the call before deliver")
	default:
	}
	deliver()
	if got := <-ap.reply; got != runner.Denied {
		t.Fatalf("winning reply = %v; want the first (deny)", got)
	}
}

func TestApprovalsExpireAtExactly60000ms(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	a := newApprovals(clk.now)
	a.add("early")
	a.add("late")
	clk.t = clk.t.Add(protocol.ApprovalExpiry - time.Millisecond)
	if code := answerNow(a, "early", true); code != "" {
		t.Fatalf("answer at 59,999 ms = %q; want recorded", code)
	}
	clk.t = clk.t.Add(time.Millisecond)
	if code := answerNow(a, "late", true); code != protocol.CodeStaleApproval {
		t.Fatalf("answer at 60,000 ms = %q; want stale_approval", code)
	}
}

func TestApprovalsClosedRunIsStale(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1000, 0)}
	a := newApprovals(clk.now)
	a.add("a1")
	a.closeAll()
	if code := answerNow(a, "a1", true); code != protocol.CodeStaleApproval {
		t.Fatalf("answer after the run = %q; want stale_approval", code)
	}
	if a.add("a2") != nil {
		t.Fatal("add after closeAll registered a request")
	}
}

// TestApproverDefaultsDeny checks expiry (in a synctest bubble: 60 s pass
// instantly) and cancellation both deny, and a late answer is stale.
func TestApproverDefaultsDeny(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, events := newTestPool(t)
		r := &activeRun{id: "run", sessionID: "s", approvals: newApprovals(time.Now)}
		ap := &approver{pool: p, run: r}

		d, err := ap.Approve(context.Background(), "shell", "shell: rm -rf x")
		if d != runner.Expired || err != nil {
			t.Fatalf("expired Approve = %v, %v; want expired, nil", d, err)
		}
		ev := <-events.C()
		if ev.Name != protocol.EventApprovalRequested || ev.ExpiresInMs != 60000 {
			t.Fatalf("event = %+v; want approval.requested with expires_in_ms 60000", ev)
		}
		if code := answerNow(r.approvals, ev.ApprovalID, true); code != protocol.CodeStaleApproval {
			t.Fatalf("answer after expiry = %q; want stale_approval", code)
		}

		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan runner.Decision)
		go func() {
			d, _ := ap.Approve(ctx, "shell", "x")
			done <- d
		}()
		ev = <-events.C()
		cancel()
		if d := <-done; d != runner.ApprovalCancelled {
			t.Fatalf("cancelled Approve = %v; want cancelled", d)
		}
		if code := answerNow(r.approvals, ev.ApprovalID, true); code != protocol.CodeStaleApproval {
			t.Fatalf("answer after cancel = %q; want stale_approval", code)
		}

		go func() {
			d, _ := ap.Approve(context.Background(), "shell", "x")
			done <- d
		}()
		ev = <-events.C()
		time.Sleep(protocol.ApprovalExpiry - time.Millisecond)
		if code := answerNow(r.approvals, ev.ApprovalID, true); code != "" {
			t.Fatalf("answer at 59,999 ms = %q; want recorded", code)
		}
		if d := <-done; d != runner.Allowed {
			t.Fatalf("allowed answer = %v; want allowed", d)
		}
	})
}

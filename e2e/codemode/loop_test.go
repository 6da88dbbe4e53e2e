package codemode

import (
	"slices"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

const (
	infiniteLoop = "for(;;){}"
	loopReps     = 5
	// loopSettle lets the program enter its loop before turn.cancel. It is
	// setup, not an assertion: a cancel that came earlier would still have
	// to stop the run.
	loopSettle = 50 * time.Millisecond
)

const loopTables = "[tools]\napproval = \"auto\"\n[tools.code_mode]\nenabled = true\ntimeout_ms = 300\nallow = [\"read_file\"]\n"

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestInfiniteLoopTimeLimit: `for(;;){}` under timeout_ms = 300 is stopped
// by the time limit, the model sees an error result and the turn completes;
// repeated loopReps times in one child, then an echo turn works. The stop
// latency (run_code started -> run_code failed, minus nothing: the 300 ms
// limit is included) is logged, never asserted.
func TestInfiniteLoopTimeLimit(t *testing.T) {
	t.Parallel()
	var script [][]step
	for range loopReps {
		script = append(script, response(runCode(infiniteLoop)), response(text("stopped")))
	}
	ws := newWorkspace(t, "", loopTables, script...)
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	var toFailed, toFinished []time.Duration
	for i := range loopReps {
		runID, adm := ch.StartTurn(s.SessionID, "loop forever")
		var evs []client.Event
		ch.Until(&evs, runID, "run_code started", clienttest.ActivityOf("tool", "run_code", "started"))
		t0 := time.Now()
		ev := ch.Until(&evs, runID, "run_code end", func(ev client.Event) bool {
			return clienttest.ActivityOf("tool", "run_code", "failed")(ev) || clienttest.ActivityOf("tool", "run_code", "completed")(ev)
		})
		t1 := time.Now()
		r := ch.Finish(s.SessionID, runID, adm, evs)
		t2 := time.Now()
		var a clienttest.Activity
		if err := ev.Decode(&a); err != nil {
			t.Fatal(err)
		}
		if a.State != "failed" {
			t.Fatalf("rep %d: run_code %s %q; want failed by the time limit", i, a.State, a.Summary)
		}
		if r.Finished.Outcome != "completed" || r.Reply() != "stopped" {
			t.Fatalf("rep %d: run.finished %s, reply %q", i, r.Terminal(), r.Reply())
		}
		if i == 0 {
			t.Logf("run_code failed: %q", a.Summary)
		}
		toFailed = append(toFailed, t1.Sub(t0))
		toFinished = append(toFinished, t2.Sub(t0))
	}
	t.Logf("time limit 300 ms, %d reps: median run_code started -> failed %v, -> run.finished %v (all: %v)",
		loopReps, median(toFailed), median(toFinished), toFinished)
	healthyAfter(t, ch, s.SessionID)
}

// TestInfiniteLoopCancel: `for(;;){}` (under a 30 s limit) stopped by
// turn.cancel: run.finished cancelled, loopReps times in one child, then an
// echo turn works. Latencies from the turn.cancel request and from its
// response to run.finished are logged, never asserted.
func TestInfiniteLoopCancel(t *testing.T) {
	t.Parallel()
	var script [][]step
	for range loopReps {
		script = append(script, response(runCode(infiniteLoop)))
	}
	ws := newWorkspace(t, "", "[tools.code_mode]\nenabled = true\n", script...)
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	var fromSend, fromResp []time.Duration
	for i := range loopReps {
		runID, adm := ch.StartTurn(s.SessionID, "loop forever")
		var evs []client.Event
		ch.Until(&evs, runID, "run_code started", clienttest.ActivityOf("tool", "run_code", "started"))
		time.Sleep(loopSettle)
		t0 := time.Now()
		if r := ch.Cancel(s.SessionID, runID); r.Error != nil {
			t.Fatalf("rep %d: turn.cancel: %s", i, r.Error.Code)
		}
		t1 := time.Now()
		r := ch.Finish(s.SessionID, runID, adm, evs)
		t2 := time.Now()
		if r.Finished.Outcome != "cancelled" {
			t.Fatalf("rep %d: run.finished %s", i, r.Terminal())
		}
		acts := r.Activities
		if last := acts[len(acts)-1]; last.Name != "run_code" || last.State == "started" {
			t.Fatalf("rep %d: last activity %+v; want run_code ended", i, last)
		}
		fromSend = append(fromSend, t2.Sub(t0))
		fromResp = append(fromResp, t2.Sub(t1))
	}
	t.Logf("turn.cancel of an infinite loop, %d reps: median turn.cancel sent -> run.finished %v, response -> run.finished %v (all from send: %v)",
		loopReps, median(fromSend), median(fromResp), fromSend)
	healthyAfter(t, ch, s.SessionID)
}

// healthyAfter checks the child is idle and answers an echo turn (the
// script is exhausted), then shuts it down cleanly.
func healthyAfter(t *testing.T, ch *child, sessionID string) {
	t.Helper()
	var st struct {
		State string `json:"state"`
	}
	ch.Result("status", nil, &st)
	if st.State != "idle" {
		t.Fatalf("status %q after the loops", st.State)
	}
	r := ch.Turn(sessionID, "still there?")
	if r.Finished.Outcome != "completed" || r.Reply() != "echo: still there?" {
		t.Fatalf("next turn: run.finished %s, reply %q", r.Terminal(), r.Reply())
	}
	ch.Shutdown()
}

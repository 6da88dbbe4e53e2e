package codemode

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/magi-code/magi-code/runner/tools"
)

// TestApprovalPauseKeepsTimeSpent: the pause for an approval stops the
// program's clock, it does not wind it back. A program with a 30 s limit
// that spends 20 s in a tool, waits a minute for the user, then spends
// another 20 s has run 40 s: it ends at its time limit. (Fake time: a
// synctest bubble; nothing here waits for real.)
func TestApprovalPauseKeepsTimeSpent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := &fakeTool{name: "slow", run: func(ctx context.Context, _ json.RawMessage) tools.Result {
			select {
			case <-time.After(20 * time.Second):
				return tools.Result{Text: "slept", Summary: "slow: ok"}
			case <-ctx.Done():
				return tools.Result{Text: "cancelled", IsError: true, Summary: "slow: cancelled"}
			}
		}}
		ap := &approver{allow: true, wait: func(ctx context.Context) {
			select {
			case <-time.After(time.Minute):
			case <-ctx.Done():
			}
		}}
		tl := New(Options{Tools: []tools.Tool{slow, &fakeTool{name: "w", mutating: true}}, Approver: ap, Timeout: 30 * time.Second})
		start := time.Now()
		res := run(t, tl, `tools.slow(); tools.w(); tools.slow(); return "done"`)
		if !res.IsError || !strings.Contains(res.Text, "time limit reached") {
			t.Fatalf("result = %+v; want the time limit: 20 s before the approval and 20 s after it are 40 s of a 30 s limit", res)
		}
		// 20 s, the minute's wait, then the 10 s that were left.
		if got, want := time.Since(start), 90*time.Second; got != want {
			t.Errorf("the program ended after %v (fake time); want %v", got, want)
		}
		if len(ap.asked) != 1 || slow.count() != 2 {
			t.Errorf("asked %d times, slow ran %d times; want 1 and 2", len(ap.asked), slow.count())
		}
	})
}

// TestTimeLimitDuringAToolCall: a limit that fires while a tool call is
// pending ends the program with the limit, even when the program catches
// the call's error (it would else return as if nothing had happened, or
// report "cancelled").
func TestTimeLimitDuringAToolCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := &fakeTool{name: "block", run: func(ctx context.Context, _ json.RawMessage) tools.Result {
			<-ctx.Done()
			return tools.Result{Text: "cancelled", IsError: true, Summary: "block: cancelled"}
		}}
		tl := New(Options{Tools: []tools.Tool{block}, Timeout: 30 * time.Second})
		for _, code := range []string{`tools.block()`, `try { tools.block() } catch (e) { return "caught" }`} {
			res := run(t, tl, code)
			if !res.IsError || res.Summary != "run_code: time limit" || !strings.Contains(res.Text, "time limit reached (30s)") {
				t.Errorf("%s: result = %+v; want the time limit", code, res)
			}
		}
	})
}

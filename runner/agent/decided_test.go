package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/approval"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// decider answers every approval with d; with cancel, it ends the run
// instead, as turn.cancel does while the request waits.
type decider struct {
	d      approval.Decision
	cancel context.CancelFunc
	asked  int
}

func (a *decider) Approve(ctx context.Context, _, _ string) (approval.Decision, error) {
	a.asked++
	if a.cancel != nil {
		a.cancel()
		<-ctx.Done()
		return approval.Cancelled, ctx.Err()
	}
	return a.d, nil
}

// TestWhoDecided: the activity summary and the model's result of a call
// that did not run say who decided, for a call the approval mode asked
// about and for one a protection forced under auto: the person's denial,
// expiry, cancellation, and a refusal when nobody could be asked.
func TestWhoDecided(t *testing.T) {
	const reason = "destructive command"
	for _, tc := range []struct {
		name        string
		forced      bool
		ap          *decider // nil: no approver
		cancel      bool
		wantSummary string
		wantText    string
	}{
		{"ask: denied", false, &decider{d: approval.Denied}, false, "shell: denied by user", "denied by user"},
		{"ask: expired", false, &decider{d: approval.Expired}, false, "shell: approval expired, not run", approval.TextExpired},
		{"ask: cancelled", false, &decider{}, true, "shell: cancelled", "cancelled"},
		{"ask: no approver", false, nil, false, "shell: refused: nobody to approve the call", "refused: nobody to approve the call"},
		{"protected: denied", true, &decider{d: approval.Denied}, false, "guarded: denied by user (protected: " + reason + ")", "denied by user"},
		{"protected: expired", true, &decider{d: approval.Expired}, false, "guarded: refused: " + reason + " (approval expired)", "refused: " + reason + "; " + approval.TextExpired},
		{"protected: cancelled", true, &decider{}, true, "guarded: cancelled", "cancelled"},
		{"protected: no approver", true, nil, false, "guarded: refused: " + reason, "refused: " + reason},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := 0
			call := `{"name":"shell","arguments":{"command":"touch x"}}`
			set := tools.Builtin(tools.Options{Cwd: t.TempDir()})
			mode := ApprovalAsk
			if tc.forced {
				call = `{"name":"guarded","arguments":{"x":"danger"}}`
				set = tools.NewSet(guarded{&ran})
				mode = ApprovalAuto
			}
			done := decidedRun(t, call, set, mode, tc.ap, tc.cancel)
			want := fmt.Sprintf("%s %q err=true failed=true", tc.wantSummary, tc.wantText)
			if !strings.HasSuffix(done, want) {
				t.Errorf("finished activity = %q; want it to end %q", done, want)
			}
			if ran != 0 {
				t.Errorf("the tool ran %d times", ran)
			}
			if tc.ap != nil && tc.ap.asked != 1 {
				t.Errorf("asked %d times; want 1", tc.ap.asked)
			}
		})
	}
}

// TestOutsideReadDecided: a read_file outside the working directory under
// approval = "ask" asks with the protection's reason; only an allowed
// request reads the file (the run marks the approved call's context,
// tools.WithApproved). Denial, expiry (the default answer), cancellation
// and a missing approver each keep the file's content from the model.
func TestOutsideReadDecided(t *testing.T) {
	const canary = "OUTSIDE-CANARY-7f3a"
	reason := tools.ReasonReadOutside
	for _, tc := range []struct {
		name        string
		ap          *decider
		cancel      bool
		wantSummary string
	}{
		{"allowed", &decider{d: approval.Allowed}, false, "read_file: 1 lines"},
		{"denied", &decider{d: approval.Denied}, false, "read_file: denied by user (protected: " + reason + ")"},
		{"expired", &decider{d: approval.Expired}, false, "read_file: refused: " + reason + " (approval expired)"},
		{"cancelled", &decider{}, true, "read_file: cancelled"},
		{"no approver", nil, false, "read_file: refused: " + reason},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			ws, outside := filepath.Join(root, "proj"), filepath.Join(root, "proj-old", "notes.txt")
			for _, d := range []string{ws, filepath.Dir(outside)} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(outside, []byte(canary+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			set := tools.Builtin(tools.Options{Cwd: ws, AskOutsideReads: true})
			done := decidedRun(t, `{"name":"read_file","arguments":{"path":"../proj-old/notes.txt"}}`, set, ApprovalAsk, tc.ap, tc.cancel)
			if !strings.Contains(done, tc.wantSummary) {
				t.Errorf("finished activity = %q; want %q", done, tc.wantSummary)
			}
			if read := strings.Contains(done, canary); read != (tc.ap != nil && tc.ap.d == approval.Allowed && !tc.cancel) {
				t.Errorf("the file's content reached the model: %v (%q)", read, done)
			}
			if tc.ap != nil && tc.ap.asked != 1 {
				t.Errorf("asked %d times; want 1", tc.ap.asked)
			}
		})
	}
}

// decidedRun runs one turn that makes call (a fixture tool_call) with set
// under mode, approvals answered by ap (nil: no approver; with cancel, ap
// ends the run while asked), and returns the finished activity's event.
func decidedRun(t *testing.T, call string, set *tools.Set, mode string, ap *decider, cancel bool) string {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	cfg := Config{Provider: fixtureprov.New(parse(t, `{"responses":[{"steps":[{"tool_call":`+call+`}]},{"steps":[{"text":"ok"}]}]}`)),
		Tools: set, Approval: mode}
	if ap != nil {
		if cancel {
			ap.cancel = stop
		}
		cfg.Approver = ap
	}
	rec := &recorder{}
	_, _ = Run(ctx, cfg, nil, "go", rec)
	var done string
	for _, ev := range rec.events {
		if strings.HasPrefix(ev, "done ") {
			done = ev
		}
	}
	return done
}

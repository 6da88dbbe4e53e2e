package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestWhoDecided runs the real binary with a fixture script and reads the
// failed activity of a call that did not run, in the live events, in
// history and in the diagnostic log: the person's denial, the run's
// cancellation, and under approval = "auto" a protection's forced approval
// that the person denies. Each says who decided; none of the others reads
// "denied by user". (Expiry takes 60 s: its decision is tested with an
// injected clock in stages/worker, its summary in runner/agent.)
func TestWhoDecided(t *testing.T) {
	t.Parallel()
	// A protected command that is harmless if it ever ran: there is no
	// repository to push from.
	const protectedCmd = "git push --force origin main"
	for _, tc := range []struct {
		name, approval, command string
		cancel                  bool
		want                    func(summary string) bool
		wantLog                 string
	}{
		{"denied", "ask", "touch denied-marker", false,
			func(s string) bool { return s == "shell: denied by user" }, `"decision":"denied"`},
		{"cancelled", "ask", "touch cancelled-marker", true,
			func(s string) bool { return s == "shell: cancelled" }, `"decision":"cancelled"`},
		{"protected under auto, denied", "auto", protectedCmd, false,
			func(s string) bool {
				return strings.HasPrefix(s, "shell: denied by user (protected: ") && strings.HasSuffix(s, ")") && !strings.Contains(s, "origin main")
			}, `"decision":"denied"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, tc.approval, response(shell(tc.command)), response(text("after")))
			ch := start(t, ws, client.Options{})
			s := ch.Create()
			runID, adm := ch.StartTurn(s.SessionID, "try it")
			var evs []client.Event
			ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
			var req clienttest.ApprovalRequested
			if err := ev.Decode(&req); err != nil {
				t.Fatal(err)
			}
			if tc.cancel {
				if r := ch.Cancel(s.SessionID, runID); r.Error != nil {
					t.Fatalf("turn.cancel: %s", r.Error.Code)
				}
			} else {
				ch.Answer(s.SessionID, runID, req.ApprovalID, false)
			}
			run := ch.Finish(s.SessionID, runID, adm, evs)
			var summary string
			for _, ev := range run.Events {
				var a clienttest.Activity
				if ev.Name == protocol.EventActivity && json.Unmarshal(ev.Data, &a) == nil && a.State == "failed" {
					summary = a.Summary
				}
			}
			if !tc.want(summary) {
				t.Fatalf("failed activity summary = %q", summary)
			}
			if run.Finished.Revision != nil {
				entries, _, _ := ch.History(s.SessionID, *run.Finished.Revision)
				// The history entry names the tool once: "shell failed: denied by user ...".
				want := "shell failed: " + strings.TrimPrefix(summary, "shell: ")
				found := false
				for _, m := range messages(entries) {
					found = found || (m.Kind == "activity" && m.Text == want)
				}
				if !found {
					t.Errorf("history has no activity %q", want)
				}
			}
			ch.Shutdown()
			logs, _ := filepath.Glob(filepath.Join(ws.Home, "logs", "serve-*.log"))
			if len(logs) != 1 {
				t.Fatalf("diagnostic logs %v; want one", logs)
			}
			data, err := os.ReadFile(logs[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tc.wantLog) || !strings.Contains(string(data), summary) {
				t.Errorf("diagnostic log lacks %s or %q:\n%s", tc.wantLog, summary, data)
			}
		})
	}
}

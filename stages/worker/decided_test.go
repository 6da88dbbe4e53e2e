package worker

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/dispatch"
)

// TestTurnExpiredApprovalSummary runs a real turn whose approval nobody
// answers (60 s pass at once in the bubble): the failed activity says the
// approval expired, never "denied by user", and the shell never ran. With
// the guard rail forcing the approval under auto, it names the protection
// instead.
func TestTurnExpiredApprovalSummary(t *testing.T) {
	for _, tc := range []struct{ name, settings, command, want string }{
		{"asked", "[tools]\napproval = \"ask\"\n", "touch marker", "shell: approval expired, not run"},
		{"protected", "[tools]\napproval = \"auto\"\n", "git push --force origin main", "shell: refused: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				script := `{"responses":[{"steps":[{"tool_call":{"name":"shell","arguments":{"command":"` + tc.command + `"}}}]},{"steps":[{"text":"ok"}]}]}`
				p, events, sid := startedPool(t, script, tc.settings)
				done := make(chan struct{})
				p.StartTurn(context.Background(), "run-1", dispatch.TurnParams{SessionID: sid, Prompt: "go"}, func() { close(done) })
				var summary string
				asked := false
				for e := range events {
					switch {
					case e.Name == protocol.EventApprovalRequested:
						asked = true
					case e.Name == protocol.EventActivity && e.State == "failed":
						summary = e.Summary
					}
					if e.Name == protocol.EventRunFinished {
						break
					}
				}
				<-done
				if !asked {
					t.Fatal("no approval was requested")
				}
				if !strings.HasPrefix(summary, tc.want) {
					t.Fatalf("failed activity summary = %q; want it to start %q", summary, tc.want)
				}
				if tc.name == "protected" && !strings.HasSuffix(summary, " (approval expired)") {
					t.Fatalf("summary = %q; want it to end (approval expired)", summary)
				}
			})
		})
	}
}

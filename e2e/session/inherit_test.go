//go:build unix

package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestInheritedDescriptorsStayWithTheAgent starts serve --stdio the way a
// careless frontend might, with two descriptors left open to it: fd 7
// writing a file of the frontend's, fd 8 reading a secret it holds. A
// shell command (confined under auto; run after approval under ask) finds
// neither: it cannot read the secret through fd 8 nor write the file
// through fd 7, and /proc/self/fd lists only its own.
func TestInheritedDescriptorsStayWithTheAgent(t *testing.T) {
	t.Parallel()
	for _, approval := range []string{"auto", "ask"} {
		t.Run(approval, func(t *testing.T) {
			t.Parallel()
			cmd := "ls /proc/self/fd > fds.txt; cat <&8 > read.txt 2>&1; echo WRITTEN >&7"
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: approval, Responses: [][]step{response(shell(cmd)), response(text("done"))}})
			outside := t.TempDir()
			frontendFile, secret := filepath.Join(outside, "frontend.log"), filepath.Join(outside, "secret")
			if err := os.WriteFile(secret, []byte("FRONTEND-SECRET\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			ch := start(t, ws, client.Options{Bin: "/bin/sh", Args: []string{"-c",
				`exec 7>>"$1" 8<"$2"; exec "$3" serve --stdio`, "sh", frontendFile, secret, clienttest.Binary(t)}})
			s := ch.Create()
			runID, adm := ch.StartTurn(s.SessionID, "look around")
			var evs []client.Event
			if approval == "ask" {
				var req clienttest.ApprovalRequested
				if err := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested).Decode(&req); err != nil {
					t.Fatal(err)
				}
				ch.AnswerCall(s.SessionID, runID, req.ApprovalID, true)
			}
			if run := ch.Finish(s.SessionID, runID, adm, evs); run.Finished.Outcome != "completed" {
				t.Fatalf("run.finished %s", run.Events[len(run.Events)-1].Data)
			}
			ch.Shutdown()
			fds, err := os.ReadFile(filepath.Join(ws.Cwd, "fds.txt"))
			if err != nil {
				t.Fatalf("the command did not run: %v", err)
			}
			for _, fd := range strings.Fields(string(fds)) {
				if fd == "7" || fd == "8" {
					t.Errorf("the command has the frontend's descriptor %s: %q", fd, fds)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(ws.Cwd, "read.txt")); strings.Contains(string(b), "FRONTEND-SECRET") {
				t.Error("the command read the secret through the inherited descriptor")
			}
			if b, _ := os.ReadFile(frontendFile); len(b) > 0 {
				t.Errorf("the command wrote the frontend's file: %q", b)
			}
		})
	}
}

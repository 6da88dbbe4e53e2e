package session

import (
	"testing"

	"github.com/magi-code/magi-code/client"
)

// TestBackToBackTurns: a client that starts the next turn (or pages
// history) the moment it reads run.finished is never answered busy. docs/protocol.md, Run events:
// run.finished comes "once, after worker/cleanup accounting".
func TestBackToBackTurns(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, "auto")
	ch := start(t, ws, client.Options{})
	sess := ch.Create()
	for i := 0; i < 30; i++ {
		r := ch.Turn(sess.SessionID, "again") // fails on busy
		if i%10 == 9 {
			ch.History(sess.SessionID, *r.Finished.Revision)
		}
	}
}

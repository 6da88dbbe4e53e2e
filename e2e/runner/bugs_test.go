package runner

import (
	"encoding/json"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestIdleAfterRunFinished sends history.page and turn.start the moment
// run.finished arrives. docs/protocol.md, Run events: run.finished comes "once, after worker/cleanup
// accounting", and the consumer trace says "Wait for run.finished before
// another prompt or history request; use its revision for history.page":
// neither may answer busy then.
// The turn worker accounts its end before it offers run.finished.
func TestIdleAfterRunFinished(t *testing.T) {
	t.Parallel()
	ch := newChild(t, clienttest.FixtureSettings, client.Options{})
	sid := ch.Create().SessionID
	busy := 0
	for i := range 40 {
		runID, adm := ch.StartTurn(sid, "hello")
		r := ch.Finish(sid, runID, adm, nil)
		method, params := "history.page", any(map[string]any{"session_id": sid, "revision": *r.Finished.Revision, "cursor": nil})
		if i%2 == 1 {
			method, params = "turn.start", any(map[string]string{"session_id": sid, "prompt": "again"})
		}
		resp := ch.Call(method, params)
		if resp.Error != nil && resp.Error.Code == string(protocol.CodeBusy) {
			busy++
		}
		if method == "turn.start" && resp.Error == nil {
			var res struct {
				RunID string `json:"run_id"`
			}
			_ = json.Unmarshal(resp.Result, &res)
			ch.Finish(sid, res.RunID, resp, nil)
		}
		waitIdle(ch)
	}
	if busy > 0 {
		t.Fatalf("%d of 40 requests sent right after run.finished answered busy", busy)
	}
}

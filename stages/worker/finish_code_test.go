package worker

import (
	"context"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/wire"
)

// TestRunFinishedErrorCode: a run that fails says why in run.finished's
// error_code; a cancelled run carries none (docs/protocol.md, Run events).
func TestRunFinishedErrorCode(t *testing.T) {
	p, events, sid := startedPool(t, `{"responses":[{"steps":[{"text":"so far"},{"error":"server_error"}]},{"steps":[{"text":"`+strings.Repeat("partial ", 64)+`"},{"sleep_ms":600000}]}]}`, "")
	failed := runTurn(t, p, events, sid, "fail")
	if last := failed[len(failed)-1]; last.Outcome != "failed" || last.ErrorCode == "" {
		t.Fatalf("failed run's run.finished = %+v; want outcome failed with an error code", last)
	}

	done := make(chan struct{})
	p.StartTurn(context.Background(), "run-2", dispatch.TurnParams{SessionID: sid, Prompt: "go"}, func() { close(done) })
	var last wire.Event
	for e := range events {
		if e.Name == protocol.EventMessageDelta {
			p.CancelRun("run-2")
		}
		if e.Name == protocol.EventRunFinished {
			last = e
			break
		}
	}
	<-done
	if last.Outcome != "cancelled" || last.ErrorCode != "" {
		t.Fatalf("cancelled run's run.finished = %+v; want outcome cancelled without an error code", last)
	}
}

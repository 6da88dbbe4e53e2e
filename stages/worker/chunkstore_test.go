package worker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/wire"
)

// TestFailedChunkStoreDegrades: the assistant chunks of a long reply are
// stored off the delta path; one that fails still degrades the run (a
// persistence_failed diagnostic, then run.finished with persistence
// "degraded" and no revision), and the reply is reconciled whole.
func TestFailedChunkStoreDegrades(t *testing.T) {
	long := strings.Repeat("word ", 8000) // 40,000 bytes: chunks while streaming
	p, events, sid := startedPool(t, `{"responses":[{"steps":[{"text":"word ","repeat":10},{"sleep_ms":300},{"text":"word ","repeat":7990}]}]}`, "")
	done := make(chan struct{})
	p.StartTurn(context.Background(), "run-1", dispatch.TurnParams{SessionID: sid, Prompt: "go"}, func() { close(done) })
	var got []wire.Event
	changed := false
	timeout := time.After(30 * time.Second) // hang guard only
	for finished := false; !finished; {
		select {
		case e := <-events:
			got = append(got, e)
			finished = e.Name == protocol.EventRunFinished
			if e.Name == protocol.EventInputPersisted && !changed {
				// While the provider sleeps, someone appends to the session
				// file behind the lease: every later append fails.
				changed = true
				f, err := os.OpenFile(filepath.Join(p.runtime().runner.SessionsDir(), sid+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteString(`{"type":"junk"}` + "\n"); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
		case <-timeout:
			t.Fatal("no run.finished")
		}
	}
	<-done
	diagnosed := 0
	for _, e := range got {
		if e.Name == protocol.EventDiagnostic && e.Code == string(protocol.CodePersistenceFailed) {
			diagnosed++
		}
	}
	fin := got[len(got)-1]
	if diagnosed != 1 || fin.Persistence != "degraded" || fin.HasRevision {
		t.Fatalf("%d persistence diagnostics, run.finished persistence %q revision %v; want 1, degraded, none", diagnosed, fin.Persistence, fin.HasRevision)
	}
	if r := reconciled(got); r != long {
		t.Fatalf("reconciled %d bytes; want the whole %d-byte reply", len(r), len(long))
	}
}

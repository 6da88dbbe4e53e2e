package worker

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newTestPool returns a pool with a counter ID source and an event edge
// the test reads directly.
func newTestPool(t *testing.T) (*Pool, *backpressure.Queue[wire.Event]) {
	t.Helper()
	var n atomic.Int64
	events := backpressure.New[wire.Event]("run-events", protocol.WorkerEvents, backpressure.Wait(protocol.CriticalEventWait), backpressure.System)
	p := NewPool(Options{
		NewID:  func() string { return "id-" + strconv.FormatInt(n.Add(1), 10) },
		Now:    time.Now,
		Events: events,
	})
	return p, events
}

func TestWorkerPanicSurfaces(t *testing.T) {
	p, _ := newTestPool(t)
	p.goWorker(func() { panic("broken invariant") })
	if got := <-p.Panicked(); got != "broken invariant" {
		t.Fatalf("Panicked() = %v", got)
	}
	p.Wait() // the panic was taken: Wait returns normally
}

package worker

import (
	"errors"
	"strconv"
	"strings"
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
	p, events, _ := newFailingTestPool(t)
	return p, events
}

// newFailingTestPool is newTestPool that also returns what the pool
// reports through Fail.
func newFailingTestPool(t *testing.T) (*Pool, *backpressure.Queue[wire.Event], <-chan error) {
	t.Helper()
	var n atomic.Int64
	events := backpressure.NewMixed("run-events", protocol.WorkerEvents, EventPolicy, backpressure.System)
	failures := make(chan error, 8)
	p := NewPool(Options{
		NewID:  func() string { return "id-" + strconv.FormatInt(n.Add(1), 10) },
		Now:    time.Now,
		Events: events,
		Fail: func(err error) {
			select {
			case failures <- err:
			default:
			}
		},
	})
	return p, events, failures
}

func TestWorkerPanicSurfaces(t *testing.T) {
	p, _, failures := newFailingTestPool(t)
	p.goWorker(func() { panic("broken invariant") })
	if got := <-failures; !errors.Is(got, ErrWorkerPanic) || !strings.Contains(got.Error(), "broken invariant") {
		t.Fatalf("Fail(%v); want ErrWorkerPanic with the panic value", got)
	}
	p.Wait() // the panic was taken: Wait returns normally
}

package worker

import (
	"context"
	"sync"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/wire"
)

// Options wire a Pool to its process.
type Options struct {
	Env    runner.Env     // the process environment (runner.ProcessEnv in production)
	Runner runner.Options // Logf is set from Logf below
	NewID  func() string  // UUIDs in production
	Now    func() time.Time
	Events *backpressure.Queue[wire.Event] // the run-event edge (deltas Drop, others Wait(2000 ms))
	Logf   func(string, ...any)
}

// runtime is the admitted runner and the session store of its settings.
type runtime struct {
	runner *runner.Runtime
	store  *history.Store
}

// Pool owns the workers and the state they share. Its methods are safe for
// concurrent use and never block on work.
type Pool struct {
	opts  Options
	group conc.WaitGroup
	// panicked receives the first worker panic: a broken invariant, which
	// the owner turns into exit 1 (STYLE.md: panics surface, never vanish).
	panicked chan any
	// lost receives once when an authoritative run event (run.finished)
	// could not be delivered: Spec: "authoritative reconciliation/terminal
	// never silently drop"; the owner exits 1.
	lost chan struct{}

	// mu guards the fields below: the resources behind the machine's
	// state. dispatch.Machine alone decides which session is attached, which
	// run is active and whether a request for them is stale or cancelled; the
	// pool holds what those decisions refer to and never decides them again.
	mu  sync.Mutex
	rt  *runtime
	att *history.Attachment // the leases of the attached session, nil when none
	// choice is the model and thinking level the attached session's turns
	// use: the startup ones for a new session, else restored from its saved
	// selection.
	choice runner.Choice
	run    *activeRun // the active run's cancellation and approvals, nil when none
}

// NewPool returns an idle pool.
func NewPool(opts Options) *Pool {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Pool{opts: opts, panicked: make(chan any, 1), lost: make(chan struct{}, 1)}
}

// goWorker runs f as a worker of the pool. A panic in f is reported on
// Panicked instead of being held until Wait: the worker's done callback
// would never run, and the child would stay busy forever.
func (p *Pool) goWorker(f func()) {
	p.group.Go(func() {
		defer func() {
			if r := recover(); r != nil {
				select {
				case p.panicked <- r:
				default:
				}
			}
		}()
		f()
	})
}

// OutputLost delivers once when a run's terminal event could not be
// queued within its 2000 ms wait.
func (p *Pool) OutputLost() <-chan struct{} { return p.lost }

func (p *Pool) outputLost() {
	select {
	case p.lost <- struct{}{}:
	default:
	}
}

// Panicked delivers the first worker panic.
func (p *Pool) Panicked() <-chan any { return p.panicked }

// Wait blocks until every worker has returned.
func (p *Pool) Wait() { p.group.Wait() }

// Teardown releases the admitted runtime: MCP servers get shutdown first,
// then the attachment's leases are released. It returns when done or when
// ctx ends (slow teardown is then left to process exit).
func (p *Pool) Teardown(ctx context.Context) {
	p.mu.Lock()
	rt, att := p.rt, p.att
	p.rt, p.att = nil, nil
	p.mu.Unlock()
	if rt != nil {
		_ = rt.runner.Close(ctx)
	}
	if att != nil {
		_ = att.Close()
	}
}

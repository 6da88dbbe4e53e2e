package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/internal/diaglog"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/wire"
)

// Failures the pool reports through Options.Fail; each ends the process
// with exit 1. Test with errors.Is.
var (
	// ErrWorkerPanic: a worker panicked (a broken invariant). The
	// worker's done callback never runs, so the child would stay busy
	// forever.
	ErrWorkerPanic = errors.New("worker: panic")
	// ErrRunFinishedLost: a run's run.finished found no room on the event
	// edge within its wait. docs/protocol.md, Ordering and delivery: "authoritative reconciliation/terminal
	// never silently drop": the client would wait for it forever.
	ErrRunFinishedLost = errors.New("worker: run.finished could not be queued")
)

// EventPolicy is the policy of the run-event edge, per event: message.delta
// is best effort (Drop, counted); every other event is critical and waits
// at most 2000 ms for room (Wait), after which its run fails with
// output_unavailable. The edge is declared where the pipeline is wired.
func EventPolicy(e wire.Event) backpressure.Policy {
	if e.Critical() {
		return criticalPolicy
	}
	return deltaPolicy
}

var (
	deltaPolicy    = backpressure.Drop()
	criticalPolicy = backpressure.Wait(protocol.CriticalEventWait)
)

// Options wire a Pool to its process.
type Options struct {
	Env    runner.Env     // the process environment (runner.ProcessEnv in production)
	Runner runner.Options // Logf is set from Logf below
	NewID  func() string  // UUIDs in production
	Now    func() time.Time
	// Events is the run-event edge; every offer applies its policy
	// (EventPolicy).
	Events *backpressure.Queue[wire.Event]
	// Output ends when the process is exiting: a critical event waiting
	// for room on Events stops waiting then. nil means never.
	Output context.Context
	// Fail reports a failure that ends the process (ErrWorkerPanic,
	// ErrRunFinishedLost, wrapped). It must not block; nil ignores.
	Fail func(error)
	// Log is the diagnostic log; StartInit opens it (nothing is created
	// before initialize is admitted). nil logs nothing.
	Log *diaglog.Log
	// LogLevelSet: the level was chosen by the environment (MC_LOG_LEVEL),
	// so the log_level setting does not change it.
	LogLevelSet bool
	Logf        func(string, ...any)
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

	// run is the active run's cancellation, approvals and taken count, nil
	// when none. Atomic rather than under mu: the writer reads it for every
	// delta it encodes (EventTaken).
	run atomic.Pointer[activeRun]

	// usage: the client required the optional usage capability
	// (protocol.CapabilityUsage), so turns offer usage events. Set once
	// by StartInit, before any turn.
	usage atomic.Bool
	// output: the client required the optional activity.output capability
	// (protocol.CapabilityActivityOutput), so tool calls offer their output.
	// Set once by StartInit, before any turn.
	output atomic.Bool
	// scoped: the client required the optional approval.session
	// capability (protocol.CapabilityApprovalSession), so approvals may be
	// answered for the session. Set once by StartInit, before any turn.
	scoped atomic.Bool
	// compact: the client required the optional compact capability
	// (protocol.CapabilityCompact): a /compact prompt compacts. Set once
	// by StartInit, before any turn.
	compact atomic.Bool
	// whole: the client required the optional approval.request capability
	// (protocol.CapabilityApprovalRequest), so approvals carry the whole
	// request. Set once by StartInit, before any turn.
	whole atomic.Bool

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
	// grants are the attached session's exact-call grants (runner.Grants):
	// new with each attachment, in memory only, gone with the child.
	grants *runner.Grants
}

// NewPool returns an idle pool.
func NewPool(opts Options) *Pool {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Output == nil {
		opts.Output = context.Background()
	}
	if opts.Fail == nil {
		opts.Fail = func(error) {}
	}
	if opts.Log == nil {
		opts.Log = diaglog.Discard()
	}
	return &Pool{opts: opts}
}

// goWorker runs f as a worker of the pool. A panic in f is reported through
// Fail (ErrWorkerPanic) instead of being held until Wait: the worker's done
// callback would never run, and the child would stay busy forever.
func (p *Pool) goWorker(f func()) {
	p.group.Go(func() {
		defer func() {
			if r := recover(); r != nil {
				p.opts.Fail(fmt.Errorf("%w: %v", ErrWorkerPanic, r))
			}
		}()
		f()
	})
}

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

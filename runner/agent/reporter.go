package agent

import (
	"context"
	"sync"

	"github.com/magi-code/magi-code/runner/approval"
)

// Reporter lets a running tool report its own inner steps as activities of
// kind tool and ask for approvals, through the run that called it. Code
// Mode uses it: the program is one activity (the run_code call itself),
// each tool call inside it another (docs/architecture.md, The agent runner), and a mutating call
// inside a program asks the same Approver as a direct call.
//
// A Reporter is valid only while the tool's Run has not returned. Its
// methods are safe for concurrent use (they are serialized); the run's
// goroutine is blocked in the tool meanwhile, so Sink calls stay in order.
// Activity identities count toward the run's 4096.
type Reporter struct {
	// mu serializes the reporter's use of the run's sink.
	mu sync.Mutex
	r  *run
}

type reporterKey struct{}

// ReporterFrom returns the Reporter of the tool call ctx belongs to, or nil
// outside one (a tool run by something other than Run).
func ReporterFrom(ctx context.Context) *Reporter {
	p, _ := ctx.Value(reporterKey{}).(*Reporter)
	return p
}

func withReporter(ctx context.Context, r *run) context.Context {
	return context.WithValue(ctx, reporterKey{}, &Reporter{r: r})
}

// Start reports a new activity of kind tool as started and returns its ID.
// An error (the per-run activity bound, or an undeliverable event) means
// the inner call must not run; after a delivery failure the run stops once
// the tool returns.
func (p *Reporter) Start(name, summary string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	id, err := p.r.newActivity()
	if err != nil {
		return "", err
	}
	return id, p.report(id, name, StateStarted, summary)
}

// Finish reports the end of an activity Start returned.
func (p *Reporter) Finish(id, name string, failed bool, summary string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	state := StateCompleted
	if failed {
		state = StateFailed
	}
	return p.report(id, name, state, summary)
}

func (p *Reporter) report(id, name, state, summary string) error {
	if err := p.r.sink.Activity(id, KindTool, name, state, summary); err != nil {
		err = sinkError(err)
		if p.r.fatal == nil {
			p.r.fatal = err
		}
		return err
	}
	return nil
}

// Approve asks the run's Approver (nil: refused, nobody can allow the
// call). summary is shown to the user after redaction; say there that the
// call comes from a program.
func (p *Reporter) Approve(ctx context.Context, toolName, summary string) (approval.Decision, error) {
	if p.r.cfg.Approver == nil {
		return approval.Refused, nil
	}
	return p.r.cfg.Approver.Approve(ctx, toolName, summary)
}

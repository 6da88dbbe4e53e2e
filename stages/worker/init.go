package worker

import (
	"context"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/dispatch"
)

// StartInit starts the one initialization worker. Spec: "Accepted
// initialization starts one worker and returns only after readiness or
// failure."
func (p *Pool) StartInit(ctx context.Context, _ []string, done func(dispatch.InitDone)) {
	p.goWorker(func() { done(p.initialize(ctx)) })
}

// initialize admits the settings and builds the runtime. It reports what
// happened; whether a success that raced with shutdown counts as
// startup_cancelled is the machine's decision (dispatch.Machine), not this
// worker's.
func (p *Pool) initialize(ctx context.Context) dispatch.InitDone {
	env := p.opts.Env
	env.Logf = p.opts.Logf
	adm, code := runner.Admit(ctx, env)
	sel := dispatch.Selection(adm.Selection())
	if code != "" {
		return dispatch.InitDone{Code: code, Sel: sel}
	}
	ropts := p.opts.Runner
	ropts.Logf = p.opts.Logf
	r, code := runner.New(ctx, adm, ropts)
	if code != "" {
		return dispatch.InitDone{Code: code, Sel: sel}
	}
	p.mu.Lock()
	// Teardown closes it, also when shutdown raced with a finished start.
	p.rt = &runtime{runner: r, store: history.NewStore(r.SessionsDir(), r.Cwd(), p.opts.Now)}
	p.mu.Unlock()
	return dispatch.InitDone{Sel: sel}
}

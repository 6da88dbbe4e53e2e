package worker

import (
	"context"
	"slices"
	"strings"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/internal/diaglog"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/dispatch"
)

// StartInit starts the one initialization worker. docs/protocol.md, initialize: "Accepted
// initialization starts one worker and returns only after readiness or
// failure."
//
// caps are the capabilities the client required: the optional ones
// (protocol.OptionalCapabilities) change what the turns send.
func (p *Pool) StartInit(ctx context.Context, caps []string, done func(dispatch.InitDone)) {
	p.usage.Store(slices.Contains(caps, protocol.CapabilityUsage))
	p.output.Store(slices.Contains(caps, protocol.CapabilityActivityOutput))
	p.scoped.Store(slices.Contains(caps, protocol.CapabilityApprovalSession))
	p.compact.Store(slices.Contains(caps, protocol.CapabilityCompact))
	p.whole.Store(slices.Contains(caps, protocol.CapabilityApprovalRequest))
	// The diagnostic log may exist from now on: initialize is admitted.
	p.opts.Log.Open()
	p.goWorker(func() {
		began := p.opts.Now()
		d := p.initialize(ctx)
		p.opts.Log.Info("initialize", "code", string(d.Code), "provider", d.Sel.Provider, "model", d.Sel.Model,
			"duration_ms", p.opts.Now().Sub(began).Milliseconds())
		done(d)
	})
}

// initialize admits the settings and builds the runtime. It reports what
// happened; whether a success that raced with shutdown counts as
// startup_cancelled is the machine's decision (dispatch.Machine), not this
// worker's.
func (p *Pool) initialize(ctx context.Context) dispatch.InitDone {
	env := p.opts.Env
	env.Logf = p.opts.Logf
	adm, code := runner.Admit(ctx, env)
	if level, ok := diaglog.ParseLevel(adm.LogLevel()); ok && !p.opts.LogLevelSet {
		p.opts.Log.SetLevel(level)
	}
	p.opts.Log.Info("settings", "sources", strings.Join(adm.Sources(), ","), "code", string(code))
	sel := selectionOf(adm.Selection())
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
	store := history.NewStore(r.SessionsDir(), r.Cwd(), p.opts.Now)
	// The optional capabilities show in history.page too (docs/protocol.md,
	// Optional capabilities).
	store.SetDetail(history.Detail{Output: p.output.Load(), Usage: p.usage.Load(), Window: r.KnownContextWindow})
	p.rt = &runtime{runner: r, store: store}
	p.mu.Unlock()
	for _, s := range r.MCPServers(protocol.MCPStatusServers) {
		sel.MCP = append(sel.MCP, dispatch.MCPServer{Name: s.Name, State: s.State, Tools: s.Tools})
	}
	return dispatch.InitDone{Sel: sel}
}

// selectionOf is what status reports of a runner selection; the MCP
// servers are the machine's from initialize.
func selectionOf(s runner.Selection) dispatch.Selection {
	return dispatch.Selection{Provider: s.Provider, Model: s.Model, ContextID: s.ContextID, Sandbox: s.Sandbox}
}

package worker

import (
	"context"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/hooks"
	"github.com/magi-code/magi-code/runner/mcp"
	"github.com/magi-code/magi-code/stages/dispatch"
)

// StartInit starts the one initialization worker. Spec: "Accepted
// initialization starts one worker and returns only after readiness or
// failure."
func (p *Pool) StartInit(ctx context.Context, _ []string, done func(dispatch.InitDone)) {
	p.goWorker(func() { done(p.initialize(ctx)) })
}

func (p *Pool) initialize(ctx context.Context) dispatch.InitDone {
	env := p.opts.Env
	env.Logf = p.opts.Logf
	snap, code := config.Load(ctx, env)
	sel := selectionOf(snap)
	if code != "" {
		return dispatch.InitDone{Code: code, Sel: sel}
	}
	if ctx.Err() != nil {
		return dispatch.InitDone{Code: protocol.CodeStartupCancelled, Sel: sel}
	}
	prov, err := newProvider(snap, p.opts.Logf)
	if err != nil {
		return dispatch.InitDone{Code: protocol.CodeProviderUnavailable, Sel: sel}
	}
	rt := &runtime{snap: snap, store: history.NewStore(snap.SessionsDir, snap.Cwd, p.opts.Now), provider: prov}
	if len(snap.MCPServers) > 0 {
		m, err := mcp.Start(ctx, serverDefs(snap.MCPServers), p.opts.Logf)
		if err != nil {
			if ctx.Err() != nil {
				return dispatch.InitDone{Code: protocol.CodeStartupCancelled, Sel: sel}
			}
			// Spec: "One failed enabled server fails initialization and
			// cleans connected resources" (mcp.Start has closed the others).
			return dispatch.InitDone{Code: protocol.CodeMCPUnavailable, Sel: sel}
		}
		rt.mcp = m
	}
	rt.tools = newToolbox(rt)
	if len(snap.Settings.Hooks) > 0 {
		// Only when configured: a nil *hooks.Runner in the interface would
		// not be a nil Hooks.
		rt.hooks = hooks.New(snap.Settings.Hooks, snap.Cwd, p.opts.Logf)
	}
	p.mu.Lock()
	p.rt = rt
	p.mu.Unlock()
	if ctx.Err() != nil {
		// Shutdown raced with a finished load: the spec resolves a pending
		// startup with startup_cancelled; Teardown closes what was built.
		return dispatch.InitDone{Code: protocol.CodeStartupCancelled, Sel: sel}
	}
	return dispatch.InitDone{Sel: sel}
}

// selectionOf is what status may show: names that are secret-like,
// control-bearing or over 256 bytes are null (empty).
func selectionOf(snap *config.Snapshot) dispatch.Selection {
	if snap == nil {
		return dispatch.Selection{}
	}
	return dispatch.Selection{
		Provider:  safe(snap.Provider),
		Model:     safe(snap.Model),
		ContextID: snap.ContextID,
	}
}

func safe(name string) string {
	if s, ok := config.SafeName(name); ok {
		return s
	}
	return ""
}

func serverDefs(servers []config.MCPServer) []mcp.ServerDef {
	defs := make([]mcp.ServerDef, len(servers))
	for i, s := range servers {
		defs[i] = mcp.ServerDef{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Cwd: s.Cwd}
	}
	return defs
}

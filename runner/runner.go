package runner

import (
	"cmp"
	"context"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/agent"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/hooks"
	"github.com/magi-code/magi-code/runner/mcp"
	"github.com/magi-code/magi-code/runner/sandbox"
	"github.com/magi-code/magi-code/runner/tools"
)

// ProcessEnv reads the process environment for Admit.
func ProcessEnv() Env {
	cwd, _ := os.Getwd()
	// $HOME on Unix; on Windows, where HOME is usually unset, %USERPROFILE%.
	home, _ := os.UserHomeDir()
	return Env{
		Home:   home,
		MCHome: os.Getenv("MC_HOME"),
		Cwd:    cwd,
		Getenv: os.Getenv,
	}
}

// Selection is what status may show of the effective provider, model and
// context: names that are secret-like, control-bearing or over 256 bytes
// are empty (null).
type Selection struct {
	Provider, Model, ContextID string
	// Sandbox is what confines commands run without asking:
	// SandboxConfined, SandboxUnavailable or SandboxOff
	// (docs/protocol.md, status).
	Sandbox string
}

// The values of Selection.Sandbox, the status field "sandbox".
const (
	SandboxConfined    = "workspace-write" // the OS sandbox confines them
	SandboxUnavailable = "unavailable"     // this machine offers no OS sandbox
	SandboxOff         = "off"             // [tools.sandbox] mode = "off"
)

// sandboxState is Selection.Sandbox for the sandbox mode of the settings
// on a machine whose OS sandbox is st.
func sandboxState(mode string, st sandbox.Status) string {
	switch {
	case mode == sandbox.ModeOff:
		return SandboxOff
	case !st.Available:
		return SandboxUnavailable
	}
	return SandboxConfined
}

// Admitted is the one admitted settings snapshot of a child (config.Load):
// settings are read once; changes on disk need a restart.
type Admitted struct {
	snap *config.Snapshot
}

// Admit reads and checks the settings once, locally (no provider request).
// On failure the code is the startup failure code, and the Admitted value
// still reports what selection was known.
func Admit(ctx context.Context, env Env) (*Admitted, protocol.Code) {
	snap, code := config.Load(ctx, env)
	return &Admitted{snap: snap}, code
}

// LogLevel is the admitted log_level setting ("" when unset).
func (a *Admitted) LogLevel() string {
	if a == nil || a.snap == nil {
		return ""
	}
	return a.snap.Settings.LogLevel
}

// Sources names the settings files that were read ("global", "project").
func (a *Admitted) Sources() []string {
	if a == nil || a.snap == nil {
		return nil
	}
	return a.snap.Sources
}

// NeedsLogin reports an admission that failed with provider_unavailable
// for want of a usable credential (config.Snapshot.NeedsLogin): what
// `magi-code login` fixes.
func (a *Admitted) NeedsLogin() bool { return a != nil && a.snap != nil && a.snap.NeedsLogin }

// Selection is the status-safe startup selection (empty when unknown).
func (a *Admitted) Selection() Selection {
	if a == nil || a.snap == nil {
		return Selection{}
	}
	return Selection{Provider: safe(a.snap.Provider), Model: safe(a.snap.Model), ContextID: a.snap.ContextID,
		Sandbox: sandboxState(a.snap.Settings.Tools.Sandbox.Mode, sandbox.Probe())}
}

func safe(name string) string {
	if s, ok := config.SafeName(name); ok {
		return s
	}
	return ""
}

// Options are the process-wide parts of a runtime.
type Options struct {
	Logf func(string, ...any) // details for people; nil discards
	// Invocation is what starts the turns: protocol.InvocationLocalAgent
	// (serve --stdio) or protocol.InvocationMissionControl (the terminal
	// app). Hooks read it in their input.
	Invocation string
	// WrapProvider, when set, wraps the provider New built (tests record
	// the requests a run makes).
	WrapProvider func(Provider) Provider
	// Sandbox, when set, is the machine's OS sandbox instead of
	// sandbox.Probe's answer (tests inject a machine without one).
	Sandbox *sandbox.Status
	// ClientMCP are MCP servers a client hands over for this runtime (an
	// editor's, over ACP): the person's own configuration, so they start
	// without the global approval that project settings' servers need. One
	// that fails to start is left out (Runtime.ClientMCPFailed) and fails
	// nothing; one named like a server of the settings is left out too.
	// Their tools never replace the settings' tools of the same name.
	ClientMCP []MCPServer
	// Approval, when "ask" or "auto", is this runtime's approval mode
	// instead of the settings' [tools] approval: the person chose it for
	// this run of Mission Control (its /approval), which restarts the
	// backend with it. "ask" makes Code Mode's calls ask too; "auto" leaves
	// [tools.code_mode] approval as set. Protections ask under either.
	// Anything else keeps the settings'.
	Approval string
}

// MCPServer is an MCP server a client defines: a stdio Command (with Args
// and Env) or a streamable HTTP URL (with Headers).
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// probe is the machine's OS sandbox: Options.Sandbox, or
// sandbox.LazyMounts (its mount probe waits for the first confined
// command, so that the child answers its first request without it).
func (o Options) probe() sandbox.Status {
	if o.Sandbox != nil {
		return *o.Sandbox
	}
	return sandbox.LazyMounts()
}

// Runtime is what the turns of a child need, built once from the admitted
// settings. Its methods are safe for concurrent use; Close ends it.
type Runtime struct {
	snap *config.Snapshot
	mcp  *mcp.Manager // nil without servers
	// client holds Options.ClientMCP's servers that started (nil without
	// any); clientFailed names those left out.
	client       *mcp.Manager
	clientFailed []string
	// provider is built once per child: the fixture's script is consumed
	// across the turns of the child (each call consumes the next response).
	provider Provider
	// tools and hooks are the settings' approval mode's (its kit); kits
	// builds, once each, those of a turn that runs under the other mode
	// (Turn.Approval: ACP's mode option), since what confines a command
	// depends on the mode it runs under (kitFor).
	tools     *tools.Set
	hooks     agent.Hooks // nil without configured hooks
	kits      map[string]func() kit
	sandbox   string // Selection.Sandbox, as the runtime confines commands
	system    []string
	subagents []agent.Subagent
}

// kit is what a turn's tools and hooks are under one approval mode: the
// shell, Code Mode's shell and hooks confined by the OS sandbox under
// "auto" (and asking where none confines them), the read tools asking
// outside the workspace under "ask" and refusing there under "auto".
type kit struct {
	tools *tools.Set
	hooks agent.Hooks // nil without configured hooks
}

// New builds the runtime of an admitted snapshot: the provider (no
// request yet), the MCP servers (started and connected), the tool set and
// hooks. docs/protocol.md, initialize: "One failed enabled server fails initialization and cleans
// connected resources": the code is then mcp_unavailable, or
// startup_cancelled when ctx ended first; nothing is left to close.
func New(ctx context.Context, a *Admitted, opts Options) (*Runtime, protocol.Code) {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	snap := withApproval(a.snap, opts.Approval)
	if ctx.Err() != nil {
		return nil, protocol.CodeStartupCancelled
	}
	prov, err := newProvider(snap, opts.Logf)
	if err != nil {
		return nil, protocol.CodeProviderUnavailable
	}
	if opts.WrapProvider != nil {
		prov = opts.WrapProvider(prov)
	}
	rt := &Runtime{snap: snap, provider: prov, subagents: subagents(snap)}
	if len(snap.MCPServers) > 0 {
		m, err := mcp.Start(ctx, serverDefs(snap.MCPServers), opts.Logf)
		if err != nil {
			if ctx.Err() != nil {
				return nil, protocol.CodeStartupCancelled
			}
			// mcp.Start has closed the servers it had connected.
			return nil, protocol.CodeMCPUnavailable
		}
		rt.mcp = m
	}
	if len(opts.ClientMCP) > 0 {
		defs, left := clientDefs(opts.ClientMCP, snap.MCPServers, snap.Cwd)
		m, failed, err := mcp.StartEach(ctx, defs, opts.Logf)
		if err != nil {
			if rt.mcp != nil {
				_ = rt.mcp.Close(context.WithoutCancel(ctx))
			}
			return nil, protocol.CodeStartupCancelled
		}
		rt.client, rt.clientFailed = m, append(left, failed...)
	}
	conf := newConfinement(snap.Settings.Tools.Sandbox, snap.Settings.Tools.UnsandboxedAuto, snap.Home, opts.probe(), opts.Logf)
	rt.sandbox = sandboxState(snap.Settings.Tools.Sandbox.Mode, sandbox.Status{Available: conf.Confined()})
	if snap.Agent != nil && len(snap.Agent.Tools) > 0 && !slices.Contains(snap.Agent.Tools, agent.TaskToolName) {
		rt.subagents = nil
	}
	build := func(s *config.Snapshot) kit { return rt.newKit(s, conf, opts) }
	k := build(snap)
	rt.tools, rt.hooks = k.tools, k.hooks
	rt.kits = map[string]func() kit{}
	for _, mode := range []string{agent.ApprovalAsk, agent.ApprovalAuto} {
		if mode != snap.Settings.Tools.Approval {
			rt.kits[mode] = sync.OnceValue(func() kit { return build(withApproval(snap, mode)) })
		}
	}
	// The skills are listed only where the model can load them.
	_, skills := rt.tools.Get(SkillToolName)
	rt.system = systemContext(snap, skills)
	return rt, ""
}

// newKit builds the tools and hooks of snap's approval mode over the
// runtime's MCP servers, confined by conf.
func (rt *Runtime) newKit(snap *config.Snapshot, conf confinement, opts Options) kit {
	k := kit{tools: newToolbox(snap, rt.mcp, rt.client, conf, opts.Logf)}
	if snap.Agent != nil && len(snap.Agent.Tools) > 0 {
		// The primary agent profile's tools list is what the model is
		// offered, exactly: the task tool too only when listed. Subagent
		// grants and the ceilings they record come from this set.
		k.tools = onlyTools(k.tools, snap.Agent.Tools)
	}
	if len(snap.Settings.Hooks) > 0 {
		// Only when configured: a nil *hooks.Runner in the interface would
		// not be a nil Hooks.
		k.hooks = hooks.New(snap.Settings.Hooks, snap.Cwd, opts.Invocation, opts.Logf).Sandboxed(conf.hooks(snap.Settings.Tools.Approval))
	}
	return k
}

// kitFor is the kit of a turn run under approval: the settings' own, or,
// for the other mode, one built for it (once): a runtime built for "ask"
// runs no command unconfined and unasked when a turn runs under "auto".
func (rt *Runtime) kitFor(approval string) kit {
	if build, ok := rt.kits[approval]; ok {
		return build()
	}
	return kit{tools: rt.tools, hooks: rt.hooks}
}

// withApproval is snap with the approval mode chosen for this runtime
// (Options.Approval); snap itself when none is.
func withApproval(snap *config.Snapshot, mode string) *config.Snapshot {
	if mode != agent.ApprovalAsk && mode != agent.ApprovalAuto {
		return snap
	}
	s := *snap
	s.Settings.Tools.Approval = mode
	if mode == agent.ApprovalAsk {
		s.Settings.Tools.CodeMode.Approval = mode
	}
	return &s
}

// Close shuts the MCP servers down. It returns when done or when ctx ends
// (a slow shutdown is then left to process exit).
func (rt *Runtime) Close(ctx context.Context) error {
	var err error
	if rt.client != nil {
		err = rt.client.Close(ctx)
	}
	if rt.mcp != nil {
		err = cmp.Or(rt.mcp.Close(ctx), err)
	}
	return err
}

// ClientMCPFailed names the servers of Options.ClientMCP left out: failed
// to start, or named like a server of the settings.
func (rt *Runtime) ClientMCPFailed() []string { return slices.Clone(rt.clientFailed) }

// clientDefs are the definitions of a client's servers, run in cwd, but
// those named like a server of the settings (left).
func clientDefs(servers []MCPServer, settings []config.MCPServer, cwd string) (defs []mcp.ServerDef, left []string) {
	for _, s := range servers {
		if slices.ContainsFunc(settings, func(c config.MCPServer) bool { return c.Name == s.Name }) {
			left = append(left, s.Name)
			continue
		}
		// Bounded as a settings server is by default: a server that never
		// answers its handshake must not hold session/new.
		defs = append(defs, mcp.ServerDef{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Cwd: cwd, Headers: s.Headers,
			StartupTimeout: config.DefaultMCPStartupTimeout, ToolTimeout: config.DefaultMCPToolTimeout})
	}
	return defs, left
}

// Selection is the status-safe startup selection.
func (rt *Runtime) Selection() Selection {
	sel := (&Admitted{snap: rt.snap}).Selection()
	sel.Sandbox = rt.sandbox
	return sel
}

// MCPState is what a frontend may show of one MCP server of the settings.
type MCPState struct {
	Name  string
	State string // MCPRunning or MCPNotApproved
	Tools int    // the tools it offers; 0 unless running
}

// States of MCPState.
const (
	MCPRunning     = "running"
	MCPNotApproved = "not_approved"
)

// MCPServers are the settings' enabled MCP servers, sorted by name, at
// most max: those started (every enabled and approved one: a server that
// fails to start fails the startup) with their tool counts, and those
// that wait for `magi-code mcp approve NAME`. A name that is not a plain
// identifier (letters, digits, ".", "_", "-", at most 64 bytes) or looks
// secret is left out. Servers a client handed over (ACP) are not listed.
func (rt *Runtime) MCPServers(max int) []MCPState {
	tools := map[string]int{}
	if rt.mcp != nil {
		for _, t := range rt.mcp.Tools() {
			tools[t.Server]++
		}
	}
	var out []MCPState
	for _, s := range rt.snap.MCPServers {
		out = append(out, MCPState{Name: s.Name, State: MCPRunning, Tools: tools[s.Name]})
	}
	for _, s := range rt.snap.MCPUnapproved {
		out = append(out, MCPState{Name: s.Name, State: MCPNotApproved})
	}
	out = slices.DeleteFunc(out, func(s MCPState) bool { return !plainName(s.Name) })
	slices.SortFunc(out, func(a, b MCPState) int { return strings.Compare(a.Name, b.Name) })
	return out[:min(len(out), max)]
}

// plainName: 1-64 bytes of [A-Za-z0-9._-], not secret-like.
func plainName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	_, ok := config.SafeName(s)
	return ok
}

// SkillInfo is what a frontend may list of one skill.
type SkillInfo struct{ Name, Description string }

// Skills lists the skills of the runtime's cwd, by name.
func (rt *Runtime) Skills() []SkillInfo {
	out := make([]SkillInfo, len(rt.snap.Skills))
	for i, s := range rt.snap.Skills {
		out[i] = SkillInfo{Name: s.Name, Description: s.Description}
	}
	return out
}

// ContextWindow is the startup model's context window in tokens (settings
// context_window, else the model's default).
func (rt *Runtime) ContextWindow() int64 {
	return int64(agent.ContextWindowFor(rt.snap.Model, rt.snap.Settings.ContextWindow))
}

// TurnModel is the model of a turn whose Turn.Model is model: model, or
// the startup model when it is "".
func (rt *Runtime) TurnModel(model string) string { return cmp.Or(model, rt.snap.Model) }

// KnownContextWindow is the context window of the turn model of model
// (TurnModel) when known: settings context_window, else the bundled
// model catalog's; 0 when neither knows it. Front ends report it with
// token usage (agent.UsageSink) to show the context left.
func (rt *Runtime) KnownContextWindow(model string) int64 {
	return int64(agent.KnownContextWindow(rt.TurnModel(model), rt.snap.Settings.ContextWindow))
}

// Approval is the approval mode of the settings ([tools] approval).
func (rt *Runtime) Approval() string { return rt.snap.Settings.Tools.Approval }

// Cwd is the session cwd (canonical); SessionsDir holds the session files.
func (rt *Runtime) Cwd() string         { return rt.snap.Cwd }
func (rt *Runtime) SessionsDir() string { return rt.snap.SessionsDir }

// StartupSelection is the selection a new session header records.
func (rt *Runtime) StartupSelection() history.Selection {
	return history.Selection{Provider: rt.snap.Provider, Model: rt.snap.Model, Thinking: rt.snap.Thinking}
}

// Choice is what the turns of the attached session use: the model ("" =
// the startup model) and the thinking level ("" = the provider's default).
type Choice struct {
	Model    string
	Thinking string
}

// ChoiceSelection is the selection a session records for choice (history
// Attachment.SaveSelection): the admitted provider, the model the turns
// use and the thinking level.
func (rt *Runtime) ChoiceSelection(c Choice) history.Selection {
	return history.Selection{Provider: rt.snap.Provider, Model: rt.TurnModel(c.Model), Thinking: c.Thinking}
}

// StartupChoice is the Choice of a new session: the startup model and
// thinking level.
func (rt *Runtime) StartupChoice() Choice { return Choice{Thinking: rt.snap.Thinking} }

// Restore applies a session's saved selection against the admitted
// settings, without writing anything. docs/protocol.md, session.open: "Restore saved
// provider/model/thinking ... Unavailable selection retains startup
// selection and saved requested thinking, with saved_selection_unavailable;
// other restoration notice uses saved_selection_notice."
//
// Only the admitted provider has a credential in this child, so a saved
// selection naming another provider is unavailable: the startup provider
// and model stay, the saved thinking level is kept. Otherwise the saved
// model and thinking level are restored, with saved_selection_notice when
// either differs from the startup one. A saved thinking level this build
// does not know cannot be restored: the startup level stays, with
// saved_selection_unavailable. Each notice appears at most once.
//
// It returns the selection status reports, the notices, and the Choice the
// session's turns use (Turn.Model, Turn.Thinking).
func (rt *Runtime) Restore(info history.OpenInfo) (Selection, []string, Choice) {
	sel, choice := rt.Selection(), rt.StartupChoice()
	if !info.HasSaved || info.Saved.Provider == "" {
		return sel, nil, choice
	}
	var notices []string
	note := func(n string) {
		if !slices.Contains(notices, n) {
			notices = append(notices, n)
		}
	}
	available := info.Saved.Provider == rt.snap.Provider
	if !available {
		note(protocol.NoticeSavedSelectionUnavailable)
	}
	switch saved := info.Saved.Thinking; {
	case !config.ValidThinking(saved):
		note(protocol.NoticeSavedSelectionUnavailable)
	case saved != choice.Thinking:
		if available {
			note(protocol.NoticeSavedSelectionNotice)
		}
		choice.Thinking = saved
	}
	if available && info.Saved.Model != "" && info.Saved.Model != rt.snap.Model {
		sel.Model = safe(info.Saved.Model)
		choice.Model = info.Saved.Model
		note(protocol.NoticeSavedSelectionNotice)
	}
	return sel, notices, choice
}

func serverDefs(servers []config.MCPServer) []mcp.ServerDef {
	defs := make([]mcp.ServerDef, len(servers))
	for i, s := range servers {
		defs[i] = mcp.ServerDef{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Cwd: s.Cwd, Headers: s.Headers,
			EnabledTools: s.EnabledTools, DisabledTools: s.DisabledTools, StartupTimeout: s.StartupTimeout, ToolTimeout: s.ToolTimeout}
	}
	return defs
}

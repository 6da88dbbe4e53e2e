package runner

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"time"

	"github.com/magi-code/magi-code/runner/agent"
	"github.com/magi-code/magi-code/runner/codemode"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/mcp"
	"github.com/magi-code/magi-code/runner/tools"
)

// newToolbox builds the direct tool set a child offers the model, once at
// startup from the admitted snapshot: built-in tools with the protections
// of settings, the tools of every connected MCP server, and run_code when
// Code Mode is enabled. docs/protocol.md, initialize: "Direct and Code Mode tool permissions stay
// independent": the direct set is every tool minus [tools] disabled, under
// [tools] approval; Code Mode calls only [tools.code_mode] allow, under
// [tools.code_mode] approval.
//
// Under approval = "auto" the shell runs in the OS sandbox (conf) and the
// read tools refuse paths outside the workspace and [tools] read_roots
// (under "ask" they ask): the direct tools under [tools] approval, Code
// Mode's under [tools.code_mode] approval.
//
// With at least one enabled skill, the skill tool loads one by name
// (skill.go); Code Mode may call it when [tools.code_mode] allow names it.
func newToolbox(snap *config.Snapshot, m, client *mcp.Manager, conf confinement, logf func(string, ...any)) *tools.Set {
	s := snap.Settings
	prot := s.Tools.Protections
	opts := tools.Options{
		Cwd:                  snap.Cwd,
		MCHome:               snap.Home,
		Home:                 personHome(),
		AllowOutsideCwd:      prot.AllowOutsideCwd,
		AllowGitInternals:    prot.AllowGitInternals,
		AllowCredentialFiles: prot.AllowCredentialFiles,
		NoForceApproval:      prot.AllowDestructiveShell,
		AllowProjectConfig:   prot.AllowProjectConfig,
		Sandbox:              conf.when(s.Tools.Approval),
		Network:              conf.network,
		Unconfined:           conf.unconfined(s.Tools.Approval),
		AskOutsideReads:      s.Tools.Approval != "auto",
		ReadRoots:            s.Tools.ReadRoots,
	}
	builtin := tools.Builtin(opts)
	all := builtin.All()
	taken := map[string]bool{}
	for _, mgr := range []*mcp.Manager{m, client} {
		if mgr == nil {
			continue
		}
		for _, t := range mgr.Tools() {
			// A client's server never shadows a tool of the settings.
			if !taken[t.FullName] {
				taken[t.FullName] = true
				all = append(all, &mcpTool{m: mgr, tool: t})
			}
		}
	}
	if len(snap.Skills) > 0 {
		all = append(all, newSkillTool(snap.Skills, logf))
	}
	direct := tools.NewSet()
	for _, t := range all {
		if !slices.Contains(s.Tools.Disabled, t.Name()) {
			direct.Add(t)
		}
	}
	if cm := s.Tools.CodeMode; cm.Enabled && !slices.Contains(s.Tools.Disabled, codemode.Name) {
		codeAll := all
		if cm.Approval != s.Tools.Approval {
			// Code Mode's approval differs: its built-in tools confine
			// by its own mode.
			opts.Sandbox = conf.when(cm.Approval)
			opts.Unconfined = conf.unconfined(cm.Approval)
			opts.AskOutsideReads = cm.Approval != "auto"
			codeAll = append(tools.Builtin(opts).All(), all[len(builtin.All()):]...)
		}
		direct.Add(newCodeMode(cm, codeAll))
	}
	return direct
}

// onlyTools returns the tools of set named in names, in set's order. A
// name that matches no tool offers nothing (a profile written for other
// agents may list tools this build does not have). run_code keeps its own
// [tools.code_mode] allow list: Code Mode permissions stay independent.
func onlyTools(set *tools.Set, names []string) *tools.Set {
	out := tools.NewSet()
	for _, t := range set.All() {
		if slices.Contains(names, t.Name()) {
			out.Add(t)
		}
	}
	return out
}

// newCodeMode builds run_code over the tools [tools.code_mode] allow names.
func newCodeMode(cm config.CodeMode, all []tools.Tool) tools.Tool {
	var allowed []tools.Tool
	for _, t := range all {
		if slices.Contains(cm.Allow, t.Name()) {
			allowed = append(allowed, t)
		}
	}
	return &codeModeTool{Tool: codemode.New(codemode.Options{
		Tools:    allowed,
		Approval: cm.Approval,
		Timeout:  time.Duration(cm.TimeoutMs) * time.Millisecond,
	})}
}

// codeModeTool runs each program with the approver and activity reporting
// of the run that called it (agent.ReporterFrom): inner calls are
// activities of that run, counted against its 4096 identities, and their
// approval requests say they come from code.
type codeModeTool struct {
	*codemode.Tool
}

func (t *codeModeTool) Run(ctx context.Context, args json.RawMessage) tools.Result {
	rep := agent.ReporterFrom(ctx)
	if rep == nil {
		return t.Tool.Run(ctx, args) // no run: approvals deny
	}
	return t.Tool.With(rep, reporterActivity{rep}).Run(ctx, args)
}

// reporterActivity adapts agent.Reporter to codemode.Activity.
type reporterActivity struct{ r *agent.Reporter }

func (a reporterActivity) Start(name, summary string) (string, error) {
	return a.r.Start(name, summary)
}
func (a reporterActivity) Finish(id, name, summary string, failed bool) error {
	return a.r.Finish(id, name, failed, summary)
}

// personHome is the person's home directory ("" when unknown), whose
// credential stores the file tools protect where links lead them.
func personHome() string {
	h, _ := os.UserHomeDir()
	return h
}

// Package tools holds the agent's tool registry and the built-in tools of
// docs/configuration.md, Built-in tools: read_file, write_file, edit_file, list_dir, grep and shell.
//
// A Tool is plain Go: a name, a description, a JSON Schema for its
// arguments, whether it mutates (and so needs approval under
// tools.approval = "ask"), and Run. MCP tools and run_code plug in by
// implementing the same interface and being added to a Set.
//
// Paths resolve against the session cwd. This is not an OS sandbox (docs/protocol.md, Launch:
// "Backend tools are not an OS sandbox"), but the file tools have guard
// rails (protect.go): nothing under /proc; no writes outside the cwd, into
// .git internals, into .magi-code project settings or to credential files,
// no reads of credential files, unless Options allow it; reads outside the
// cwd only with the person's approval or below a read root; and the shell asks for approval of destructive commands even under
// tools.approval = "auto" (ForceApprover, with package runner/shell). A refusal is an
// error result whose text says why (RefusedOutsideCwd...). Every result handed to the model
// is bounded (Options.MaxOutput, 64 KiB by default) and truncated with
// TruncatedMarker; no tool holds an unbounded buffer. Summaries are short
// and safe: tool name and outcome, never raw arguments or results.
package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/magi-code/magi-code/runner/subproc"
)

// Tool is one tool the model may call. Implementations must be safe for use
// by one run at a time.
type Tool interface {
	// Name is the tool's name as offered to the model.
	Name() string
	// Description tells the model what the tool does.
	Description() string
	// Schema is the JSON Schema object of the arguments.
	Schema() json.RawMessage
	// Mutating reports whether the tool changes the world and so needs
	// approval when approval is "ask".
	Mutating() bool
	// Describe returns a short description of a call for an approval
	// request (at most DescribeBytes). It may quote the command or path the
	// user is asked to allow; the caller redacts it before display.
	Describe(args json.RawMessage) string
	// Run runs the call. It blocks until the tool is done or ctx ends; on
	// ctx end it stops promptly (killing any subprocesses) and returns an
	// error result.
	Run(ctx context.Context, args json.RawMessage) Result
}

// Result is what a tool call produced.
type Result struct {
	// Text goes to the model, bounded by the tool's output limit.
	Text string
	// IsError marks a failed call (bad arguments, missing file, nonzero
	// exit, timeout, cancellation).
	IsError bool
	// Summary is a short safe outcome for activity events, such as
	// "read_file: 3 lines"; never raw arguments or results.
	Summary string
	// Line is the first line (1-based) of the file the call changed, for
	// a client that opens the file there; 0 when none or unknown.
	Line int
}

// Requester is an optional interface of a Tool whose Describe cuts what it
// describes at DescribeBytes: Request is the same description whole (a
// shell call's whole command), for a client that shows the whole request
// before it can be allowed with one key. Never bounded here: the approver
// redacts and bounds it.
type Requester interface {
	Request(args json.RawMessage) string
}

// Defaults.
const (
	DefaultMaxOutput    = 64 << 10          // bytes of tool output handed to the model
	DefaultShellTimeout = 120 * time.Second // per shell command
	DescribeBytes       = 896               // bound of Describe's result: with a protection's prefix, within an approval summary's 1024 bytes
	TruncatedMarker     = "\n[output truncated]"
)

// Options configure the built-in tools.
type Options struct {
	// Cwd is the session working directory; relative paths resolve against it.
	Cwd string
	// Env is the complete environment of shell commands. Nil means
	// MinimalEnv(): never the provider credentials.
	Env []string
	// ShellTimeout bounds each shell command; zero means DefaultShellTimeout.
	ShellTimeout time.Duration
	// MaxOutput bounds each result's text; zero means DefaultMaxOutput.
	MaxOutput int

	// MCHome is the storage root ($MC_HOME). Everything under it (auth,
	// settings, MCP approvals, sessions) is protected like a credential
	// file. Empty protects no storage root.
	MCHome string
	// Home is the person's home directory. Its credential stores
	// (HomeCredentials) that are symbolic links, or lie below one
	// (~/.ssh -> ~/Dropbox/ssh), are protected where they lead too, as the
	// OS sandbox protects them: a name there (Dropbox/ssh/server-key) says
	// nothing. Empty: names alone decide.
	Home string
	// AllowOutsideCwd lets write_file and edit_file write outside Cwd
	// (settings: tools.protections.allow_outside_cwd, default false).
	AllowOutsideCwd bool
	// AskOutsideReads makes a read tool (read_file, grep, list_dir) whose
	// path lies outside Cwd and ReadRoots ask for approval (ForceApproval)
	// and read once the person allows it; without it such a read is
	// refused. Set under approval = "ask".
	AskOutsideReads bool
	// ReadRoots are directories outside Cwd the read tools read without
	// asking (settings, global only: tools.read_roots). Protections still
	// apply inside them.
	ReadRoots []string
	// AllowGitInternals lets write_file and edit_file write paths with a
	// version control metadata component (protected.VCS: .git, .hg, .jj...;
	// settings: tools.protections.allow_git_internals, default false).
	AllowGitInternals bool
	// AllowCredentialFiles lets the file tools read and write credential
	// files (settings: tools.protections.allow_credential_files, default
	// false).
	AllowCredentialFiles bool
	// AllowProjectConfig lets write_file and edit_file write paths with a
	// .magi-code or .claude component: project settings, skills and agent profiles
	// that later sessions and children load (settings, global only:
	// tools.protections.allow_project_config, default false).
	AllowProjectConfig bool
	// Sandbox, when set, confines each shell command: it rewrites the
	// command, not yet started, to start through the OS sandbox's launcher
	// (runner/sandbox), with version control metadata (.git, .hg, .jj...)
	// read-only unless vcsWritable (a version control command that writes
	// it, which the guard rail asked the person about), and with the
	// network open only if network (Network says when). A failed
	// sandboxed command's summary names the sandbox (SandboxSummary), and
	// says when the network was closed.
	Sandbox func(cmd *exec.Cmd, vcsWritable, network bool) error
	// Network is when a confined shell command (Sandbox set) gets the
	// network.
	Network NetworkRule
	// Unconfined says every shell command asks, with ReasonUnconfined,
	// even under approval = "auto": no OS sandbox would confine it
	// (settings: tools.unsandboxed_auto = false, the default, where the
	// machine or the settings offer none).
	Unconfined bool
	// NoForceApproval turns off the shell's destructive-command check
	// (ForceApproval always answers false; settings:
	// tools.protections.allow_destructive_shell, default false).
	NoForceApproval bool

	// cwdReal, mcHomeReal and readRootsReal are Cwd, MCHome and the
	// absolute ReadRoots with their symlinks resolved, set by withDefaults.
	cwdReal, mcHomeReal string
	readRootsReal       []string
	// credLinks lists, once at the first check, where Home's credential
	// stores lead when that is another path (linkedCredentials), and where
	// MCHome's links lead (MCHomeLinks).
	credLinks func() []string
}

func (o Options) withDefaults() Options {
	// Relative paths resolve against an absolute cwd, so that protections
	// compare like with like.
	if !filepath.IsAbs(o.Cwd) {
		if abs, err := filepath.Abs(o.Cwd); err == nil {
			o.Cwd = abs
		}
	}
	if o.Env == nil {
		o.Env = MinimalEnv()
	}
	if o.ShellTimeout <= 0 {
		o.ShellTimeout = DefaultShellTimeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if home, mc := o.Home, o.MCHome; filepath.IsAbs(home) || filepath.IsAbs(mc) {
		o.credLinks = sync.OnceValue(func() []string {
			var out []string
			if filepath.IsAbs(home) {
				out = linkedCredentials(filepath.Clean(home))
			}
			if filepath.IsAbs(mc) {
				out = append(out, MCHomeLinks(filepath.Clean(mc))...)
			}
			return out
		})
	}
	o.cwdReal = realOrSelf(o.Cwd)
	o.mcHomeReal = realOrSelf(o.MCHome)
	o.readRootsReal = nil
	for _, r := range o.ReadRoots {
		if filepath.IsAbs(r) {
			o.readRootsReal = append(o.readRootsReal, realOrSelf(r))
		}
	}
	return o
}

// MinimalEnv returns PATH, HOME, LANG and TERM from this process's
// environment (PATH defaulting to /usr/bin:/bin) and nothing else.
func MinimalEnv() []string {
	env := make([]string, 0, 4)
	for _, k := range subproc.Inherited {
		v, ok := os.LookupEnv(k)
		if k == "PATH" && (!ok || v == "") {
			v, ok = "/usr/bin:/bin", true
		}
		if ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Set is an ordered registry of tools, keyed by name. It is not safe for
// concurrent mutation; build it before the run starts.
type Set struct {
	tools []Tool
}

// NewSet returns a set holding tools; a later tool replaces an earlier one
// of the same name.
func NewSet(tools ...Tool) *Set {
	s := &Set{}
	for _, t := range tools {
		s.Add(t)
	}
	return s
}

// Builtin returns the six built-in tools configured by opts.
func Builtin(opts Options) *Set {
	o := opts.withDefaults()
	return NewSet(
		&readFile{o}, &writeFile{o}, &editFile{o}, &listDir{o}, &grepTool{o}, &shell{o},
	)
}

// Add adds t, replacing any tool of the same name in place.
func (s *Set) Add(t Tool) {
	for i, old := range s.tools {
		if old.Name() == t.Name() {
			s.tools[i] = t
			return
		}
	}
	s.tools = append(s.tools, t)
}

// Get returns the tool called name.
func (s *Set) Get(name string) (Tool, bool) {
	if s == nil {
		return nil, false
	}
	for _, t := range s.tools {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// All returns the tools in the order they were added.
func (s *Set) All() []Tool {
	if s == nil {
		return nil
	}
	return slices.Clone(s.tools)
}

// bound cuts s at a UTF-8 boundary so that it plus marker fits limit bytes.
func bound(s string, limit int, marker string) string {
	if len(s) <= limit {
		return s
	}
	cut := max(limit-len(marker), 0)
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + marker
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// clip makes s valid UTF-8 and fits it in limit bytes. If s is longer, or
// cut says the source was already cut, it ends in TruncatedMarker.
func clip(s string, limit int, cut bool) (string, bool) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !cut && len(s) <= limit {
		return s, false
	}
	return bound(s, max(limit-len(TruncatedMarker), 0), "") + TruncatedMarker, true
}

// errResult is a failed call with a safe summary "name: what".
func errResult(name, what string) Result {
	return Result{Text: name + ": " + what, IsError: true, Summary: name + ": " + what}
}

// decode parses a call's JSON arguments into v. Extra fields are ignored:
// models add them, and they change nothing. Empty arguments mean {}.
func decode(args json.RawMessage, v any) error {
	if len(strings.TrimSpace(string(args))) == 0 {
		return nil
	}
	return json.Unmarshal(args, v)
}

// describe bounds a call description for approval requests.
func describe(s string) string {
	return bound(strings.ToValidUTF8(s, "\uFFFD"), DescribeBytes, "...")
}

// resolve makes p absolute against cwd. It is not a sandbox check.
func resolve(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

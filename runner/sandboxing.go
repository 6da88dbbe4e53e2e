package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/protected"
	"github.com/magi-code/magi-code/runner/sandbox"
	"github.com/magi-code/magi-code/runner/shell"
	"github.com/magi-code/magi-code/runner/tools"
)

// confinement is how the runtime confines commands it runs without
// asking: wrap rewrites a command to start through the OS sandbox, or is
// nil where there is none (mode off, no Landlock, or the executable cannot
// be found to act as the launcher).
type confinement struct {
	wrap func(cmd *exec.Cmd, vcsWritable, network bool) error
	// network is when confined shell commands get the network:
	// [tools.sandbox] network = true opens it for all; where the launcher
	// cannot close it every command asks; otherwise only a call that
	// asks for it (and was allowed) gets it.
	network tools.NetworkRule
	// hookNetwork is the network of confined hooks, which cannot ask:
	// [tools.sandbox] network.
	hookNetwork bool
	// unsandboxedAuto is [tools] unsandboxed_auto: without a sandbox,
	// shell commands under auto run without asking all the same.
	unsandboxedAuto bool
	// text is what confines such commands (sandbox.Status.Text), for the
	// log, config show and the protocol's status.
	text string
}

// newConfinement decides once at startup, given the machine's sandbox
// (st, from sandbox.Probe), how commands run under auto, and logs it:
// "sandbox: ..." (docs/configuration.md, [tools.sandbox]). Confined
// commands write only below sandbox.Defaults, and never the workspace's
// version control metadata (.git, .hg, .jj...: runner/protected), .magi-code
// or .claude, nor mcHome (sandbox.Protect), and read no
// file of mcHome (Policy.Unreadable), nor, without the network, the
// person's credential files (homeCredentials).
func newConfinement(s config.Sandbox, unsandboxedAuto bool, mcHome string, st sandbox.Status, logf func(string, ...any)) confinement {
	c := confinement{unsandboxedAuto: unsandboxedAuto, text: st.Text(s.Mode, s.Network), hookNetwork: s.Network}
	switch {
	case s.Network:
		c.network = tools.NetworkOpen
	case !st.NetworkClosable:
		c.network = tools.NetworkUnclosable
	}
	if s.Mode == sandbox.ModeOff || !st.Available {
		logf("sandbox: %s", c.text)
		return c
	}
	self, err := sandbox.Self()
	if err != nil {
		c.text = "unavailable: the launcher (this executable) cannot be found; the destructive-command guard stands alone"
		logf("sandbox: %s", c.text)
		return c
	}
	logf("sandbox: %s", c.text)
	mounts := func() string { return st.Mounts }
	if st.MountsLater != nil {
		// Decided by the first confined command, and logged then.
		mounts = sync.OnceValue(func() string {
			m := st.MountsLater()
			logf("sandbox: %s", sandbox.MountsText(m))
			return m
		})
	}
	roots := append([]string(nil), s.WritableRoots...)
	c.wrap = func(cmd *exec.Cmd, vcsWritable, network bool) error {
		// Go's build cache and npm's: the confined command's own
		// (sandbox.OwnCaches), never the person's, whose entries their next
		// unconfined build or install trusts. Landlock grants only a
		// directory that exists.
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		for _, kv := range sandbox.OwnCaches(cmd.Dir, cmd.Env) {
			if _, dir, _ := strings.Cut(kv, "="); os.MkdirAll(dir, 0o700) == nil {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		unreadable := append([]string{mcHome}, tools.MCHomeLinks(mcHome)...)
		if !network {
			unreadable = append(unreadable, homeCredentials(cmd.Env)...)
		}
		protect := sandbox.Protect(cmd.Dir, mcHome, vcsWritable)
		if !vcsWritable {
			// What git reads as configuration or runs from outside its
			// directory (a configuration file a repository includes, the
			// hooks where core.hooksPath puts them: husky's .husky): metadata
			// like .git/config and .git/hooks, read by the person's next git
			// command; the workspace's repository's and each nested one's.
			repos := []string{cmd.Dir}
			for _, p := range protect {
				if strings.EqualFold(filepath.Base(p), ".git") && filepath.Dir(p) != cmd.Dir {
					repos = append(repos, filepath.Dir(p))
				}
			}
			for _, r := range repos {
				for _, h := range shell.GitRunPaths(r, cmd.Env) {
					if !slices.Contains(protect, h) {
						protect = append(protect, h)
					}
				}
			}
		}
		writable := sandbox.Defaults(cmd.Dir, cmd.Env, roots)
		protect = append(protect, homeConfig(cmd, roots)...)
		p := sandbox.Policy{
			Writable:   writable,
			Protected:  protect,
			Unreadable: unreadable,
			Network:    network,
			Mounts:     mounts(),
		}
		return p.Wrap(cmd, self)
	}
	return c
}

// homeConfig is protected.HomeConfig of each home (the command's
// environment's HOME and this process's) that the workspace or a temp
// directory holds (an agent started in ~, HOME below /tmp): the person's
// dotfiles and caches, which their next shell, build or commit runs, stay
// read-only although a writable directory holds them. The workspace, the
// temp directories (TMPDIR may be ~/.cache/tmp), the confined commands'
// own caches and writable_roots (roots) stay writable where they lie below
// one.
func homeConfig(cmd *exec.Cmd, roots []string) []string {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	holders := []string{real(cmd.Dir), real(os.TempDir()), real("/tmp")}
	for _, kv := range slices.Backward(cmd.Env) {
		if d, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			if filepath.IsAbs(d) {
				holders = append(holders, real(d))
			}
			break
		}
	}
	keep := append(slices.Clone(holders), roots...) // the workspace and the temp directories too
	for _, kv := range sandbox.OwnCaches(cmd.Dir, cmd.Env) {
		_, dir, _ := strings.Cut(kv, "=")
		keep = append(keep, real(dir))
	}
	var out []string
	for _, home := range protected.Homes(cmd.Env) {
		h := real(home)
		if !slices.ContainsFunc(holders, func(w string) bool { return w == h || strings.HasPrefix(h, w+"/") || w == "/" }) {
			continue
		}
		for _, p := range protected.HomeConfig(h, keep) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// homeCredentials lists the person's credential files and directories
// (tools.HomeCredentials, from the file tools' tables) in the home of
// the command's environment (env's last HOME) and in this process's home,
// when they differ. A confined command without the network cannot read
// them; one given the network (asked for, or [tools.sandbox] network =
// true) can, since git over ssh, gh and aws need them to reach it.
func homeCredentials(env []string) []string {
	var out []string
	for _, h := range protected.Homes(env) {
		for _, p := range tools.HomeCredentials(h) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Confined reports whether commands run under auto are in the OS sandbox.
func (c confinement) Confined() bool { return c.wrap != nil }

// when returns the wrapper of the shell commands run without asking under
// approval: only "auto" confines (under "ask" the person approves each
// command).
func (c confinement) when(approval string) func(*exec.Cmd, bool, bool) error {
	if approval != "auto" {
		return nil
	}
	return c.wrap
}

// hooks returns the wrapper of hook commands under approval: confined
// under "auto", with version control metadata read-only and the network of the settings (a
// hook cannot ask for it: closed by default; where the launcher cannot
// close it, a hook that did not get it fails to start).
func (c confinement) hooks(approval string) func(*exec.Cmd) error {
	wrap := c.when(approval)
	if wrap == nil {
		return nil
	}
	return func(cmd *exec.Cmd) error { return wrap(cmd, false, c.hookNetwork) }
}

// unconfined reports whether shell commands under approval must ask
// because no sandbox would confine them ([tools] unsandboxed_auto false).
func (c confinement) unconfined(approval string) bool {
	return approval == "auto" && c.wrap == nil && !c.unsandboxedAuto
}

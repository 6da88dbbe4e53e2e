package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/sandbox"
	"github.com/magi-code/magi-code/runner/tools"
)

// TestShellConfinedUnderAuto: the runtime's shell runs in the OS sandbox
// exactly when it runs without asking: approval = "auto" with
// [tools.sandbox] mode = "workspace-write" (Code Mode's shell by its own
// approval); under "ask", or with mode = "off", it does not. Startup logs
// which. Where the kernel has no Landlock nothing is confined and the log
// says so.
func TestShellConfinedUnderAuto(t *testing.T) {
	st := sandbox.ProbeWithMounts()
	// outside is writable to this test but to no confined command: not the
	// workspace, a temp directory or the package directory (a clone may be
	// below /tmp).
	outside := ostest.OutsideTemp(t)
	// wrote runs the shell command of tool through run and reports whether
	// it wrote a file outside the workspace.
	n := 0
	wrote := func(t *testing.T, run func(cmd string)) bool {
		t.Helper()
		n++
		f := filepath.Join(outside, "f"+strconv.Itoa(n))
		run("echo x > " + f)
		_, err := os.Stat(f)
		return err == nil
	}
	for _, tc := range []struct {
		name, approval, codeApproval, mode string
		direct, code                       bool // confined
		unsandboxed                        bool // [tools] unsandboxed_auto
	}{
		{"auto", "auto", "ask", "workspace-write", true, false, false},
		{"ask", "ask", "ask", "workspace-write", false, false, false},
		{"code mode auto", "ask", "auto", "workspace-write", false, true, false},
		{"auto, sandbox off, unsandboxed_auto", "auto", "auto", "off", false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs strings.Builder
			logf := func(f string, a ...any) { fmt.Fprintf(&logs, f+"\n", a...) }
			snap := &config.Snapshot{Provider: "fixture", Model: "fixture-model", Cwd: t.TempDir(), Home: t.TempDir()}
			snap.Settings.Tools.Approval = tc.approval
			snap.Settings.Tools.UnsandboxedAuto = tc.unsandboxed
			snap.Settings.Tools.CodeMode = config.CodeMode{Enabled: true, Allow: []string{"shell"}, Approval: tc.codeApproval, TimeoutMs: 5000}
			snap.Settings.Tools.Sandbox = config.Sandbox{Mode: tc.mode, Network: true}
			rt, code := New(t.Context(), &Admitted{snap: snap}, Options{Logf: logf})
			if code != "" {
				t.Fatal(code)
			}
			defer rt.Close(t.Context())
			// How .git is kept read-only is logged by the first confined
			// command, which runs the mount probe.
			wantLog := "sandbox: " + sandbox.LazyMounts().Text(tc.mode, true)
			if !strings.Contains(logs.String(), wantLog) {
				t.Errorf("log %q; want %q", logs.String(), wantLog)
			}
			direct, _ := rt.tools.Get("shell")
			res := direct.Run(context.Background(), json.RawMessage(`{"command":"exit 3"}`))
			if tc.direct && st.Available && !strings.Contains(logs.String(), "sandbox: "+sandbox.MountsText(st.Mounts)) {
				t.Errorf("log %q; want the first confined command to log %q", logs.String(), sandbox.MountsText(st.Mounts))
			}
			if got := strings.Contains(res.Summary, tools.SandboxSummary); got != (tc.direct && st.Available) {
				t.Errorf("direct shell summary %q; confined %v, want %v", res.Summary, got, tc.direct && st.Available)
			}
			confined := tc.direct && st.Available
			if got := wrote(t, func(cmd string) {
				direct.Run(context.Background(), json.RawMessage(`{"command":"`+cmd+`"}`))
			}); got == confined {
				t.Errorf("direct shell wrote outside the workspace: %v; confined %v", got, confined)
			}
			runCode, _ := rt.tools.Get("run_code")
			// Under "ask" Code Mode's shell asks, and here no one answers:
			// only an "auto" one runs.
			confined = tc.code && st.Available
			if got := wrote(t, func(cmd string) {
				runCode.Run(context.Background(), json.RawMessage(`{"code":"try { tools.shell({command: '`+cmd+`'}) } catch (e) {}"}`))
			}); tc.codeApproval == "auto" && got == confined {
				t.Errorf("Code Mode shell wrote outside the workspace: %v; confined %v", got, confined)
			}
			res = runCode.Run(context.Background(), json.RawMessage(`{"code":"try { tools.shell({command: 'exit 3'}) } catch (e) { return e.message }"}`))
			if got := strings.Contains(res.Text, tools.SandboxSummary); got != (tc.code && st.Available) {
				t.Errorf("Code Mode shell result %q; confined %v, want %v", res.Text, got, tc.code && st.Available)
			}
		})
	}
}

// TestConfinedOwnCaches: a confined command builds and installs with a Go
// build cache and an npm cache of its own (sandbox.OwnCaches of its
// workspace, created), set as its GOCACHE and npm_config_cache over the
// person's and writable to it; the person's caches, whose entries their
// next unconfined build or install trusts, are not in its policy. MC_HOME
// is unreadable to it.
func TestConfinedOwnCaches(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	c := newConfinement(config.Sandbox{Mode: sandbox.ModeWorkspaceWrite, Network: true}, false, filepath.Join(home, ".magi-code"),
		sandbox.Status{Available: true, ABI: 4}, func(string, ...any) {})
	if !c.Confined() {
		t.Skip("the launcher (this executable) cannot be found")
	}
	env := []string{"HOME=" + home, "GOCACHE=" + filepath.Join(home, "gc"), "npm_config_cache=" + filepath.Join(home, "nc"), "PATH=/bin"}
	cmd := exec.Command("/bin/sh", "-c", "true")
	cmd.Dir, cmd.Env = ws, env
	if err := c.wrap(cmd, false, false); err != nil {
		t.Fatal(err)
	}
	var p sandbox.Policy
	if err := json.Unmarshal([]byte(cmd.Args[2]), &p); err != nil {
		t.Fatalf("policy %q: %v", cmd.Args[2], err)
	}
	if want := filepath.Join(home, ".magi-code"); len(p.Unreadable) == 0 || p.Unreadable[0] != want {
		t.Errorf("unreadable %q; want MC_HOME %q first", p.Unreadable, want)
	}
	own := cmd.Env[len(env):]
	if len(own) != 2 {
		t.Fatalf("variables added: %q; want GOCACHE and npm_config_cache", own)
	}
	for i, name := range []string{"GOCACHE", "npm_config_cache"} {
		dir, ok := strings.CutPrefix(own[i], name+"=")
		if !ok || !strings.HasPrefix(dir, filepath.Join(home, ".cache", "magi-code")+string(filepath.Separator)) {
			t.Errorf("added variable %q; want %s below ~/.cache/magi-code", own[i], name)
			continue
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("the confined cache %s was not created: %v", dir, err)
		}
		if !slices.Contains(p.Writable, dir) {
			t.Errorf("writable %q lacks the confined cache %s", p.Writable, dir)
		}
	}
	if want := "GOCACHE=" + sandbox.BuildCache(ws, env); own[0] != want {
		t.Errorf("GOCACHE %q; want %q", own[0], want)
	}
	for _, bad := range []string{filepath.Join(home, "gc"), filepath.Join(home, ".cache", "go-build"), filepath.Join(home, ".cache"),
		filepath.Join(home, "nc"), filepath.Join(home, "nc", "_cacache"), filepath.Join(home, ".npm"), filepath.Join(home, ".npm", "_cacache")} {
		if slices.Contains(p.Writable, bad) {
			t.Errorf("writable %q holds the person's cache %s", p.Writable, bad)
		}
	}
}

// TestConfinementNetwork: [tools.sandbox] network and the machine decide
// the network rule of confined shell commands (false: on request; true:
// open to all; a launcher that cannot close it: every command asks), and
// hooks, which cannot ask, get the setting's network in their policy.
func TestConfinementNetwork(t *testing.T) {
	for _, tc := range []struct {
		network, closable bool
		want              tools.NetworkRule
	}{
		{false, true, tools.NetworkOnRequest},
		{true, true, tools.NetworkOpen},
		{false, false, tools.NetworkUnclosable},
		{true, false, tools.NetworkOpen},
	} {
		c := newConfinement(config.Sandbox{Mode: sandbox.ModeWorkspaceWrite, Network: tc.network}, false, t.TempDir(),
			sandbox.Status{Available: true, ABI: 6, NetworkClosable: tc.closable}, func(string, ...any) {})
		if !c.Confined() {
			t.Skip("the launcher (this executable) cannot be found")
		}
		if c.network != tc.want {
			t.Errorf("network %v, closable %v: rule %v; want %v", tc.network, tc.closable, c.network, tc.want)
		}
		cmd := exec.Command("/bin/sh", "-c", "true")
		cmd.Dir = t.TempDir()
		if err := c.hooks("auto")(cmd); err != nil {
			t.Fatal(err)
		}
		var p sandbox.Policy
		if err := json.Unmarshal([]byte(cmd.Args[2]), &p); err != nil {
			t.Fatalf("policy %q: %v", cmd.Args[2], err)
		}
		if p.Network != tc.network {
			t.Errorf("network %v: a hook's policy has network %v", tc.network, p.Network)
		}
		// A shell command gets what its call was given.
		for _, open := range []bool{false, true} {
			cmd := exec.Command("/bin/sh", "-c", "true")
			cmd.Dir = t.TempDir()
			if err := c.wrap(cmd, false, open); err != nil {
				t.Fatal(err)
			}
			var p sandbox.Policy
			if err := json.Unmarshal([]byte(cmd.Args[2]), &p); err != nil || p.Network != open {
				t.Errorf("setting %v: a command given network %v has policy %q", tc.network, open, cmd.Args[2])
			}
		}
	}
}

// TestCodeModeNetworkAsks: Code Mode's shell under its own approval =
// "auto" follows the direct shell's network rule: a call without the
// network runs unasked, one with "network": true asks (and here, with no
// one to answer, is refused with the network reason).
func TestCodeModeNetworkAsks(t *testing.T) {
	if st := sandbox.Probe(); !st.Available || !st.NetworkClosable {
		t.Skipf("no OS sandbox that closes the network here: %+v", st)
	}
	snap := &config.Snapshot{Provider: "fixture", Model: "fixture-model", Cwd: t.TempDir(), Home: t.TempDir()}
	snap.Settings.Tools.Approval = "ask"
	snap.Settings.Tools.CodeMode = config.CodeMode{Enabled: true, Allow: []string{"shell"}, Approval: "auto", TimeoutMs: 5000}
	snap.Settings.Tools.Sandbox = config.Sandbox{Mode: sandbox.ModeWorkspaceWrite}
	rt, code := New(t.Context(), &Admitted{snap: snap}, Options{Logf: func(string, ...any) {}})
	if code != "" {
		t.Fatal(code)
	}
	defer rt.Close(t.Context())
	runCode, _ := rt.tools.Get("run_code")
	for _, tc := range []struct{ call, want string }{
		{`{command: 'echo ran'}`, "ran"},
		{`{command: 'echo ran', network: true}`, tools.ReasonNetwork},
	} {
		res := runCode.Run(context.Background(), json.RawMessage(`{"code":"try { return tools.shell(`+tc.call+`) } catch (e) { return e.message }"}`))
		if !strings.Contains(res.Text, tc.want) {
			t.Errorf("tools.shell(%s): %q; want %q", tc.call, res.Text, tc.want)
		}
	}
}

// TestConfinementMounts: the startup probe's answer (injected) decides how
// version control metadata stays read-only: with a mount namespace, a
// confined command creates entries at the top of a git workspace and
// still cannot write .git; with the probe's "none", the per-entry grants
// of before (no new top-level entry); the log says which.
func TestConfinementMounts(t *testing.T) {
	st := sandbox.ProbeWithMounts()
	if !st.Available || st.Mounts == "" {
		t.Skip("no sandbox or no mount namespace here")
	}
	for _, mounts := range []string{st.Mounts, ""} {
		ws := filepath.Join(ostest.OutsideTemp(t), "ws")
		if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var log strings.Builder
		c := newConfinement(config.Sandbox{Mode: sandbox.ModeWorkspaceWrite}, false, filepath.Join(t.TempDir(), "mc"),
			sandbox.Status{Available: true, ABI: st.ABI, NetworkClosable: st.NetworkClosable, Mounts: mounts},
			func(f string, a ...any) { fmt.Fprintf(&log, f, a...) })
		want := "by per-entry grants: new files at the repository's top level are refused"
		if mounts != "" {
			want = ".git protected by read-only mounts"
		}
		if !strings.Contains(log.String(), want) {
			t.Errorf("mounts %q: log %q; want it to say %q", mounts, log.String(), want)
		}
		run := func(script string) bool {
			cmd := exec.Command("/bin/sh", "-c", script)
			cmd.Dir = ws
			if err := c.wrap(cmd, false, false); err != nil {
				t.Fatal(err)
			}
			return cmd.Run() == nil
		}
		if got := run("mkdir bin && echo ok > bin/x && echo t > top.txt"); got != (mounts != "") {
			t.Errorf("mounts %q: creating at the top: %v; want %v", mounts, got, mounts != "")
		}
		if run("echo x >> .git/config") || run("mv .git g") {
			t.Errorf("mounts %q: .git was written or moved", mounts)
		}
		if data, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(data) != "[core]\n" {
			t.Errorf("mounts %q: .git/config = %q", mounts, data)
		}
	}
}

// TestMountsProbedAtFirstCommand: the mount probe (which starts processes)
// does not run when the runtime is built, so the child answers its first
// request without waiting for it; the first confined command runs it,
// once, uses its answer and logs it.
func TestMountsProbedAtFirstCommand(t *testing.T) {
	st := sandbox.Probe()
	if !st.Available {
		t.Skip("no sandbox here")
	}
	calls := 0
	st.MountsLater = func() string { calls++; return sandbox.MountsNS }
	var log strings.Builder
	c := newConfinement(config.Sandbox{Mode: sandbox.ModeWorkspaceWrite}, false, filepath.Join(t.TempDir(), "mc"), st,
		func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) })
	if calls != 0 {
		t.Fatalf("the mount probe ran %d times before any command", calls)
	}
	if strings.Contains(log.String(), ".git protected") {
		t.Errorf("startup log %q names a .git protection not decided yet", log.String())
	}
	for i := range 2 {
		cmd := exec.Command("/bin/true")
		cmd.Dir = t.TempDir()
		if err := c.wrap(cmd, false, false); err != nil {
			t.Fatal(err)
		}
		if calls != 1 {
			t.Fatalf("command %d: the mount probe ran %d times; want once", i, calls)
		}
		if !strings.Contains(strings.Join(cmd.Args, " "), `"mounts":"ns"`) {
			t.Errorf("command %d: launcher args %q lack the probe's mounts mode", i, cmd.Args)
		}
	}
	if n := strings.Count(log.String(), sandbox.MountsText(sandbox.MountsNS)); n != 1 {
		t.Errorf("log %q says the probe's answer %d times; want once", log.String(), n)
	}
}

// TestConfinedCredentialsUnreadable: a confined command without the
// network cannot read the person's credential files (the file tools'
// tables, tools.HomeCredentials) in the HOME of its environment; the same
// command given the network can (git over ssh, gh and aws need them).
// Listing ~/.ssh still shows names: Landlock leaves directories listable.
func TestConfinedCredentialsUnreadable(t *testing.T) {
	st := sandbox.Probe()
	if !st.Available {
		t.Skip("no sandbox here")
	}
	home := filepath.Join(ostest.OutsideTemp(t), "home")
	secrets := map[string]string{
		".ssh/id_ed25519":         "SSH-SECRET",
		".aws/credentials":        "AWS-SECRET",
		".git-credentials":        "GIT-SECRET",
		".config/gh/hosts.yml":    "GH-SECRET",
		".docker/config.json":     "DOCKER-SECRET",
		".cargo/credentials.toml": "CARGO-SECRET",
	}
	for rel, secret := range secrets {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Not a credential: still readable without the network.
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("PLAIN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newConfinement(config.Sandbox{Mode: sandbox.ModeWorkspaceWrite}, false, filepath.Join(t.TempDir(), "mc"), st, func(string, ...any) {})
	if !c.Confined() {
		t.Skip("the launcher (this executable) cannot be found")
	}
	cat := func(rel string, network bool) string {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", `cat "$HOME/`+rel+`"`)
		cmd.Dir, cmd.Env = t.TempDir(), []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
		if err := c.wrap(cmd, false, network); err != nil {
			t.Fatal(err)
		}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	for rel, secret := range secrets {
		if out := cat(rel, false); strings.Contains(out, secret) {
			t.Errorf("without the network, cat ~/%s printed %q", rel, out)
		}
		if out := cat(rel, true); !strings.Contains(out, secret) {
			t.Errorf("with the network, cat ~/%s printed %q; want the file", rel, out)
		}
	}
	if out := cat(".gitconfig", false); !strings.Contains(out, "PLAIN") {
		t.Errorf("cat ~/.gitconfig printed %q; want it readable", out)
	}
}

// TestConfinedGitHooks: where core.hooksPath puts git's hooks in the
// workspace (husky's .husky/_, whose scripts run .husky/NAME), a confined
// command cannot change them, nor add one, by any program: the person's
// next commit would run them unconfined, as it would .git/hooks. A
// version control command the person approved (vcsWritable) writes them,
// and the rest of the workspace stays writable.
func TestConfinedGitHooks(t *testing.T) {
	st := sandbox.Probe()
	if !st.Available {
		t.Skip("no sandbox here")
	}
	root := ostest.OutsideTemp(t)
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	for p, content := range map[string]string{
		filepath.Join(ws, ".git", "config"):            "[core]\n\thooksPath = .husky/_\n[include]\n\tpath = ../tools/git.inc\n",
		filepath.Join(ws, "tools", "git.inc"):          "[alias]\n\tst = status\n",
		filepath.Join(ws, ".husky", "pre-commit"):      "npm test\n",
		filepath.Join(ws, ".husky", "_", "pre-commit"): "#!/bin/sh\n",
		filepath.Join(home, ".gitconfig"):              "",
		filepath.Join(ws, "src", "a.txt"):              "",
		// A nested repository with hooks of its own.
		filepath.Join(ws, "vendor", "lib", ".git", "config"):          "[core]\n\thooksPath = .githooks\n",
		filepath.Join(ws, "vendor", "lib", ".githooks", "pre-commit"): "x\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newConfinement(config.Sandbox{Mode: sandbox.ModeWorkspaceWrite}, false, filepath.Join(t.TempDir(), "mc"), st, func(string, ...any) {})
	if !c.Confined() {
		t.Skip("the launcher (this executable) cannot be found")
	}
	run := func(script string, vcsWritable bool) {
		t.Helper()
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir, cmd.Env = ws, []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
		if err := c.wrap(cmd, vcsWritable, false); err != nil {
			t.Fatal(err)
		}
		_, _ = cmd.CombinedOutput()
	}
	run(`echo evil >> .husky/pre-commit; echo evil >> .husky/_/pre-commit; echo evil > .husky/pre-push; `+
		`mv .husky src/moved; echo evil >> vendor/lib/.githooks/pre-commit; printf '[core]\\n\\tfsmonitor = x\\n' >> tools/git.inc; echo ok > src/new.txt`, false)
	for name, want := range map[string]string{".husky/pre-commit": "npm test\n", ".husky/_/pre-commit": "#!/bin/sh\n", ".husky/pre-push": "", "src/new.txt": "ok\n",
		"vendor/lib/.githooks/pre-commit": "x\n", "tools/git.inc": "[alias]\n\tst = status\n"} {
		if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != want {
			t.Errorf("after a confined command, %s = %q; want %q", name, b, want)
		}
	}
	run(`echo npx lint-staged >> .husky/pre-commit`, true)
	if b, _ := os.ReadFile(filepath.Join(ws, ".husky", "pre-commit")); string(b) != "npm test\nnpx lint-staged\n" {
		t.Errorf("after an approved version control command, .husky/pre-commit = %q; want it written", b)
	}
}

// TestConfinedHomeConfig: a confined command run in the home directory
// itself (an agent started in ~) cannot change the person's dotfiles and
// caches there (~/.bashrc, ~/.config/git/config, ~/go, ~/bin), which their
// next shell or build runs unconfined; it writes the rest of home, and its
// own Go build cache below ~/.cache stays writable.
func TestConfinedHomeConfig(t *testing.T) {
	st := sandbox.Probe()
	if !st.Available {
		t.Skip("no sandbox here")
	}
	home := ostest.OutsideTemp(t)
	files := []string{".bashrc", ".config/git/config", "go/pkg/mod/m@v1/x.go", "bin/tool", ".cache/pip/x", "proj/main.go"}
	for _, f := range files {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("ORIG\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newConfinement(config.Sandbox{Mode: sandbox.ModeWorkspaceWrite}, false, filepath.Join(t.TempDir(), "mc"), st, func(string, ...any) {})
	if !c.Confined() {
		t.Skip("the launcher (this executable) cannot be found")
	}
	script := `for f in ` + strings.Join(files, " ") + `; do echo PWN >> "$f"; done; echo ok > "$GOCACHE/probe"`
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir, cmd.Env = home, []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	if err := c.wrap(cmd, false, false); err != nil {
		t.Fatal(err)
	}
	out, _ := cmd.CombinedOutput()
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(home, f))
		if want := f == "proj/main.go"; (string(b) != "ORIG\n") != want {
			t.Errorf("~/%s = %q; written %v, want %v (output %s)", f, b, !want, want, out)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(sandbox.BuildCache(home, cmd.Env), "probe")); string(b) != "ok\n" {
		t.Errorf("the command's own GOCACHE below ~/.cache is not writable: %q (output %s)", b, out)
	}
	// A temp directory below a dotfile directory stays writable.
	tmp := filepath.Join(home, ".cache", "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("/bin/sh", "-c", `echo ok > "$TMPDIR/probe"`)
	cmd.Dir, cmd.Env = home, []string{"HOME=" + home, "PATH=/usr/bin:/bin", "TMPDIR=" + tmp}
	if err := c.wrap(cmd, false, false); err != nil {
		t.Fatal(err)
	}
	out, _ = cmd.CombinedOutput()
	if b, _ := os.ReadFile(filepath.Join(tmp, "probe")); string(b) != "ok\n" {
		t.Errorf("TMPDIR below ~/.cache is not writable: %q (output %s)", b, out)
	}
	// A temp directory that holds home (TMPDIR above it, as HOME below
	// /tmp is): the same, from a project below home.
	cmd = exec.Command("/bin/sh", "-c", `echo PWN >> "$HOME/.bashrc"; echo PWN >> "$HOME/proj/main.go"`)
	cmd.Dir, cmd.Env = filepath.Join(home, "proj"), []string{"HOME=" + home, "PATH=/usr/bin:/bin", "TMPDIR=" + filepath.Dir(home)}
	if err := c.wrap(cmd, false, false); err != nil {
		t.Fatal(err)
	}
	out, _ = cmd.CombinedOutput()
	if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(b) != "ORIG\n" {
		t.Errorf("with TMPDIR holding home, ~/.bashrc = %q (output %s)", b, out)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "proj/main.go")); string(b) != "ORIG\nPWN\nPWN\n" {
		t.Errorf("with TMPDIR holding home, ~/proj/main.go = %q; want it written (output %s)", b, out)
	}
}

// TestTurnApprovalConfines: a turn that runs under another approval mode
// than the settings' (Turn.Approval: ACP's mode option) gets the tools of
// that mode. Under "auto" on a runtime the settings built for "ask", the
// shell runs in the OS sandbox (it cannot write outside the workspace) or,
// where no sandbox confines it, asks; under "ask" on a runtime built for
// "auto", a read outside the workspace asks instead of being refused.
func TestTurnApprovalConfines(t *testing.T) {
	outside := ostest.OutsideTemp(t)
	for _, tc := range []struct {
		name, settings, turn string
		machine              *sandbox.Status // nil: this machine's
		wantConfined         bool            // the shell cannot write outside
		wantShellAsks        bool            // an ordinary command asks
		wantReadAsks         bool            // a read outside asks (else refused)
	}{
		{"ask settings, auto turn", "ask", "auto", nil, true, false, false},
		{"ask settings, auto turn, no sandbox", "ask", "auto", &sandbox.Status{Reason: "test"}, false, true, false},
		{"auto settings, ask turn", "auto", "ask", nil, false, false, true},
		{"auto settings, auto turn", "auto", "", nil, true, false, false},
		{"ask settings, ask turn", "ask", "", nil, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := sandbox.ProbeWithMounts()
			if tc.machine != nil {
				st = *tc.machine
			}
			if tc.wantConfined && !st.Available {
				t.Skipf("no OS sandbox here: %s", st.Reason)
			}
			snap := &config.Snapshot{Provider: "fixture", Model: "fixture-model", Cwd: t.TempDir(), Home: t.TempDir()}
			snap.Settings.Tools.Approval = tc.settings
			snap.Settings.Tools.CodeMode.Approval = "ask"
			snap.Settings.Tools.Sandbox = config.Sandbox{Mode: "workspace-write", Network: true}
			rt, code := New(t.Context(), &Admitted{snap: snap}, Options{Sandbox: &st})
			if code != "" {
				t.Fatal(code)
			}
			defer rt.Close(t.Context())
			cfg := rt.config(Turn{Approval: tc.turn})
			if want := cmp.Or(tc.turn, tc.settings); cfg.Approval != want {
				t.Fatalf("approval %q; want %q", cfg.Approval, want)
			}
			sh, _ := cfg.Tools.Get("shell")
			f := filepath.Join(outside, strings.ReplaceAll(tc.name, " ", "_"))
			args := json.RawMessage(`{"command":"echo x > ` + f + `"}`)
			asks, _ := sh.(interface {
				ForceApproval(json.RawMessage) (bool, string)
			}).ForceApproval(args)
			if asks != tc.wantShellAsks {
				t.Errorf("shell asks %v; want %v", asks, tc.wantShellAsks)
			}
			sh.Run(t.Context(), args)
			if _, err := os.Stat(f); (err == nil) == tc.wantConfined {
				t.Errorf("the shell wrote outside the workspace: %v; confined %v", err == nil, tc.wantConfined)
			}
			rf, _ := cfg.Tools.Get("read_file")
			read := json.RawMessage(`{"path":"` + f + `"}`)
			if asks, _ := rf.(interface {
				ForceApproval(json.RawMessage) (bool, string)
			}).ForceApproval(read); asks != tc.wantReadAsks {
				t.Errorf("read outside asks %v; want %v", asks, tc.wantReadAsks)
			}
			// The same mode again is the same kit: built once.
			if again := rt.config(Turn{Approval: tc.turn}); again.Tools != cfg.Tools {
				t.Error("a second turn under the same mode got another tool set")
			}
		})
	}
}

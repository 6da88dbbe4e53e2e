package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/runner/sandbox"
)

// TestShellSandboxed runs the real shell tool, confined the way the runner
// confines it under approval = "auto" (the sandbox's defaults: workspace,
// temp, caches), with ~/canary outside the workspace under a temp HOME.
// Whatever the command (sh, python3, perl), it cannot delete or change the
// canary, and the failed summary names the sandbox; writes inside the
// workspace succeed. Skipped, with the reason, only where the kernel
// offers no Landlock.
func TestShellSandboxed(t *testing.T) {
	if st := sandbox.Probe(); !st.Available {
		t.Skipf("no OS sandbox here: %s", st.Reason)
	}
	self, err := sandbox.Self()
	if err != nil {
		t.Fatal(err)
	}
	root := ostest.OutsideTemp(t)
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	canary := filepath.Join(home, "canary")
	for _, d := range []string{ws, canary} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	egg := filepath.Join(canary, "egg")
	if err := os.WriteFile(egg, []byte("alive"), 0o644); err != nil {
		t.Fatal(err)
	}
	wrap := func(cmd *exec.Cmd, _, network bool) error {
		return sandbox.Policy{Writable: sandbox.Defaults(cmd.Dir, cmd.Env, nil), Network: network}.Wrap(cmd, self)
	}
	sh, _ := Builtin(Options{Cwd: ws, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + home}, Sandbox: wrap}).Get("shell")
	run := func(command string) Result {
		args, _ := json.Marshal(map[string]string{"command": command})
		return sh.Run(context.Background(), args)
	}
	if res := run("echo in > inside && mkdir -p d && rm -r d && cat inside"); res.IsError || res.Text != "in\n" || res.Summary != "shell: exit 0" {
		t.Fatalf("inside the workspace: %+v", res)
	}
	for _, command := range []string{
		"rm -rf ~/canary",
		`bash -c "rm -rf {~/canary,/nonexistent}"`,
		`bash -c 'rm -rf $"$HOME/canary"'`,
		"echo overwritten > ~/canary/egg",
		"mv ~/canary ./stolen",
		`python3 -c 'import os, shutil; shutil.rmtree(os.path.expanduser("~/canary"))'`,
		`perl -MFile::Path=rmtree -e 'rmtree("$ENV{HOME}/canary"); exit(-e "$ENV{HOME}/canary" ? 1 : 0)'`,
		"touch ~/new-file",
	} {
		res := run(command)
		if !res.IsError || !strings.HasSuffix(res.Summary, "("+SandboxSummary+"; "+NoNetworkSummary+")") {
			t.Errorf("%s: %+v; want a failure whose summary names the sandbox", command, res)
		}
		if data, err := os.ReadFile(egg); err != nil || string(data) != "alive" {
			t.Fatalf("after %s the canary is %q, %v", command, data, err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "new-file")); err == nil {
		t.Error("a file was created in HOME")
	}
}

// TestShellSandboxVCSWritable: the shell tool tells the sandbox to leave
// version control metadata writable exactly for a command that writes it
// (which ForceApproval asked about): git commit, hg commit, jj describe,
// and an approved push that also records itself; not for reading
// commands nor for others.
func TestShellSandboxVCSWritable(t *testing.T) {
	ws := t.TempDir()
	var got []bool
	wrap := func(cmd *exec.Cmd, vcsWritable, _ bool) error {
		got = append(got, vcsWritable)
		return nil
	}
	o := Options{Cwd: ws, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + ws}, Sandbox: wrap, ShellTimeout: 10 * time.Second, MaxOutput: 1 << 10}
	sh, _ := Builtin(o).Get("shell")
	for _, tc := range []struct {
		cmd      string
		writable bool
	}{
		{"git commit -m x", true}, {"hg commit -m x", true}, {"jj describe -m x", true}, {"sl amend", true},
		{"hg push --force", true}, {"jj git push", true}, {"darcs record", true},
		{"git status", false}, {"hg status", false}, {"jj --ignore-working-copy log", false}, {"echo hi", false},
		{"rm -rf ~/x", false},
	} {
		got = nil
		args, _ := json.Marshal(map[string]string{"command": tc.cmd})
		sh.Run(context.Background(), args)
		if len(got) != 1 || got[0] != tc.writable {
			t.Errorf("%s: the sandbox was asked for writable metadata %v; want %v", tc.cmd, got, tc.writable)
		}
		if force, why := sh.(ForceApprover).ForceApproval(args); tc.writable && !force {
			t.Errorf("%s: writes the metadata unasked (%q)", tc.cmd, why)
		}
	}
}

// TestMercurialUnderSandbox runs real Mercurial through the shell tool,
// confined as under approval = "auto" (the workspace's .hg read-only): the
// commands the guard rail lets run unasked, because they only read the
// repository, work confined; a writing one (which asks) fails confined
// unless it runs as approved, with the metadata writable; and a hook a
// confined command tries to add to .hg/hgrc never lands. Skipped where
// hg or Landlock is missing.
func TestMercurialUnderSandbox(t *testing.T) {
	if st := sandbox.Probe(); !st.Available {
		t.Skipf("no OS sandbox here: %s", st.Reason)
	}
	hg, err := exec.LookPath("hg")
	if err != nil {
		t.Skip("hg is not installed")
	}
	self, err := sandbox.Self()
	if err != nil {
		t.Fatal(err)
	}
	root := ostest.OutsideTemp(t)
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=" + filepath.Dir(hg) + ":/usr/bin:/bin", "HOME=" + home, "HGUSER=t <t@example.invalid>", "HGPLAIN=1"}
	setup := exec.Command("/bin/sh", "-c", "hg init -q && echo a > a.txt && hg add -q a.txt && hg commit -q -m one && echo b >> a.txt")
	setup.Dir, setup.Env = ws, env
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("setting up the repository: %v %s", err, out)
	}
	hgrc := filepath.Join(ws, ".hg", "hgrc")
	if err := os.WriteFile(hgrc, []byte("[paths]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var writable bool
	wrap := func(cmd *exec.Cmd, vcsWritable, network bool) error {
		writable = vcsWritable
		return sandbox.Policy{Writable: sandbox.Defaults(cmd.Dir, cmd.Env, nil), Protected: sandbox.Protect(cmd.Dir, "", vcsWritable), Network: network}.Wrap(cmd, self)
	}
	o := Options{Cwd: ws, Env: env, Sandbox: wrap}
	sh, _ := Builtin(o).Get("shell")
	run := func(command string) Result {
		args, _ := json.Marshal(map[string]string{"command": command})
		return sh.Run(context.Background(), args)
	}
	for _, command := range []string{"hg status", "hg log -r .", "hg diff", "hg summary", "hg annotate a.txt",
		"hg cat -r . a.txt", "hg heads", "hg identify", "hg bookmarks",
		"hg branch", "hg config", "hg export tip", "hg resolve --list", "hg grep -r . a"} {
		if force, why := sh.(ForceApprover).ForceApproval(json.RawMessage(`{"command":` + strconv.Quote(command) + `}`)); force {
			t.Errorf("%s asks (%s); want it read unasked", command, why)
		}
		if res := run(command); res.IsError || writable {
			t.Errorf("confined, %s: %+v (metadata writable %v); want it to work read-only", command, res, writable)
		}
	}
	commit := "hg commit -m two"
	if force, _ := sh.(ForceApprover).ForceApproval(json.RawMessage(`{"command":` + strconv.Quote(commit) + `}`)); !force {
		t.Fatalf("%s does not ask", commit)
	}
	confined := exec.Command("/bin/sh", "-c", commit)
	confined.Dir, confined.Env = ws, env
	if err := (sandbox.Policy{Writable: []string{ws}, Protected: sandbox.Protect(ws, "", false)}).Wrap(confined, self); err != nil {
		t.Fatal(err)
	}
	if err := confined.Run(); err == nil {
		t.Errorf("%s succeeded with .hg read-only", commit)
	}
	if res := run(commit); res.IsError || !writable {
		t.Errorf("approved, %s: %+v (metadata writable %v); want it to commit", commit, res, writable)
	}
	if res := run(`printf '[hooks]\npre-status = touch pwned\n' >> .hg/hgrc`); !res.IsError {
		t.Errorf("a confined command appended to .hg/hgrc: %+v", res)
	}
	if data, _ := os.ReadFile(hgrc); string(data) != "[paths]\n" {
		t.Errorf(".hg/hgrc = %q", data)
	}
}

// TestShellSetsAsideNewProtectedNames: a confined command that creates a
// protected name (version control metadata, project configuration) at the
// workspace's top where there was none finds it moved aside when it ends,
// and its result says so; one that existed before, one created by a
// command approved to write metadata, one created in a subdirectory, and
// any created without the sandbox (under ask) stay.
func TestShellSetsAsideNewProtectedNames(t *testing.T) {
	nop := func(*exec.Cmd, bool, bool) error { return nil }
	for _, tc := range []struct {
		name, cmd string
		sandbox   bool
		pre       []string // made before the command
		aside     []string // moved aside after it
		stay      []string // still in place after it
	}{
		{"claude hooks", `mkdir .claude && echo '{"hooks":{}}' > .claude/settings.json`, true, nil, []string{".claude"}, nil},
		{"magi-code skills", `mkdir -p .magi-code/skills/k && echo x > .magi-code/skills/k/SKILL.md`, true, nil, []string{".magi-code"}, nil},
		{"new hg beside nothing", `mkdir -p .hg && echo '[hooks]' > .hg/hgrc`, true, nil, []string{".hg"}, nil},
		{"a link named .git", `ln -s /nonexistent .git`, true, nil, []string{".git"}, nil},
		{"a file named .jj", `echo x > .jj`, true, nil, []string{".jj"}, nil},
		{"existing .claude", `echo x > .claude/notes`, true, []string{".claude"}, nil, []string{".claude/notes"}},
		{"subdirectory", `mkdir -p sub/.claude`, true, nil, []string{"sub/.claude"}, nil},
		{"nested git with a core.fsmonitor", `mkdir -p sub/.git && printf '[core]\n\tfsmonitor = x\n' > sub/.git/config`, true, []string{"sub"}, []string{"sub/.git"}, nil},
		{"a new tree holding metadata", `mkdir -p a/b/c/.hg`, true, nil, []string{"a/b/c/.hg"}, []string{"a/b/c"}},
		{"a bare repository below", `mkdir -p fx/o.git/objects fx/o.git/refs && echo 'ref: refs/heads/main' > fx/o.git/HEAD`, true, nil, []string{"fx/o.git"}, []string{"fx"}},
		{"upper case", `mkdir -p sub/.GIT`, true, []string{"sub"}, []string{"sub/.GIT"}, nil},
		{"a gitfile below", `echo 'gitdir: /x' > sub/.git`, true, []string{"sub"}, []string{"sub/.git"}, nil},
		{"a nested repository moved", `mv sub moved`, true, []string{"sub/.git"}, nil, []string{"moved/.git"}},
		{"a nested repository moved elsewhere", `mv a/sub b/sub`, true, []string{"a/sub/.git", "b"}, nil, []string{"b/sub/.git"}},
		{"written into existing metadata", `echo x > sub/.git/config`, true, []string{"sub/.git"}, nil, []string{"sub/.git/config"}},
		{"in node_modules", `mkdir -p node_modules/x/.git`, true, []string{"node_modules"}, nil, []string{"node_modules/x/.git"}},
		{"upper case project configuration", `mkdir -p sub/.CLAUDE`, true, []string{"sub"}, []string{"sub/.CLAUDE"}, nil},
		{"an existing directory made a bare repository", `mkdir src/objects src/refs && echo 'ref: refs/heads/main' > src/HEAD && printf '[alias]\n\tst = !x\n' > src/config`, true, []string{"src"}, []string{"src/HEAD"}, []string{"src/config"}},
		{"a link to a repository made elsewhere", `mkdir -p "$TMPDIR/r$$/.git" && ln -s "$TMPDIR/r$$" linked`, true, nil, []string{"linked"}, nil},
		{"a link to a bare repository", `mkdir -p "$TMPDIR/b$$/objects" "$TMPDIR/b$$/refs" && echo 'ref: refs/heads/main' > "$TMPDIR/b$$/HEAD" && ln -s "$TMPDIR/b$$" bare`, true, nil, []string{"bare"}, nil},
		{"a link to a plain directory", `mkdir -p "$TMPDIR/p$$/src" && ln -s "$TMPDIR/p$$" plain && ln -s /nonexistent dangling`, true, nil, nil, []string{"plain", "dangling"}},
		// Bites only as a user other than root: DAC does not bind root.
		{"a directory made unreadable", `mkdir -p hid/.git && chmod 311 hid`, true, nil, []string{"hid/.git"}, nil},
		{"the directory's time put back", `t=$(stat -c %.9Y sub); echo 'gitdir: /x' > sub/.git; touch -d "@$t" sub`, true, []string{"sub"}, []string{"sub/.git"}, nil},
		{"under ask", `mkdir .claude`, false, nil, nil, []string{".claude"}},
		{"approved metadata write", `mkdir .git && echo x > .git/config; git commit -m x || true`, true, nil, nil, []string{".git/config"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := ostest.OutsideTemp(t)
			for _, p := range tc.pre {
				if err := os.MkdirAll(filepath.Join(ws, p), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			o := Options{Cwd: ws, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + ws, "TMPDIR=" + t.TempDir()}, ShellTimeout: 10 * time.Second, MaxOutput: 1 << 12}
			if tc.sandbox {
				o.Sandbox = nop
			}
			sh, _ := Builtin(o).Get("shell")
			args, _ := json.Marshal(map[string]string{"command": tc.cmd})
			res := sh.Run(context.Background(), args)
			for _, name := range tc.aside {
				if _, err := os.Lstat(filepath.Join(ws, name)); err == nil {
					t.Errorf("%s is still in place after the command", name)
				}
				if _, err := os.Lstat(filepath.Join(ws, name+".refused-by-sandbox")); err != nil {
					t.Errorf("%s was not moved to %s.refused-by-sandbox: %v", name, name, err)
				}
				if !strings.Contains(res.Text, "[refused: the command created "+name+" ") {
					t.Errorf("result %q does not say %s was refused", res.Text, name)
				}
			}
			for _, p := range tc.stay {
				if _, err := os.Lstat(filepath.Join(ws, p)); err != nil {
					t.Errorf("%s was moved: %v (result %q)", p, err, res.Text)
				}
			}
			if len(tc.aside) == 0 && strings.Contains(res.Text, "[refused: the command created") {
				t.Errorf("result %q says something was refused", res.Text)
			}
		})
	}
	// git's hooks directory (core.hooksPath), missing when the command
	// starts, made by it: moved aside too; a directory beside it stays.
	wsh := ostest.OutsideTemp(t)
	if err := os.MkdirAll(filepath.Join(wsh, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wsh, ".git", "config"), []byte("[core]\n\thooksPath = .githooks\n[include]\n\tpath = ../local.inc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shh, _ := Builtin(Options{Cwd: wsh, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + wsh}, Sandbox: nop, ShellTimeout: 10 * time.Second, MaxOutput: 1 << 12}).Get("shell")
	argsh, _ := json.Marshal(map[string]string{"command": "mkdir .githooks other && echo 'touch x' > .githooks/pre-commit && printf '[core]\\n\\tfsmonitor = x\\n' > local.inc"})
	res := shh.Run(context.Background(), argsh)
	for _, name := range []string{".githooks", "local.inc"} {
		if !strings.Contains(res.Text, "[refused: the command created "+name+" ") {
			t.Errorf("a new hooks directory and included file: result %q; want %s refused", res.Text, name)
		}
		if _, err := os.Lstat(filepath.Join(wsh, name)); err == nil {
			t.Errorf("%s, which git reads or runs, made by a confined command, stayed in place", name)
		}
	}
	if _, err := os.Lstat(filepath.Join(wsh, "other")); err != nil {
		t.Errorf("other was moved: %v", err)
	}
	// The person's own hooks directory, there before a command, stays.
	if err := os.Mkdir(filepath.Join(wsh, ".githooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	argsh, _ = json.Marshal(map[string]string{"command": "echo ok > other/x"})
	if res := shh.Run(context.Background(), argsh); strings.Contains(res.Text, "[refused") {
		t.Errorf("with the hooks directory there before: result %q", res.Text)
	}
	if _, err := os.Lstat(filepath.Join(wsh, ".githooks")); err != nil {
		t.Errorf("the person's .githooks was moved: %v", err)
	}
	// Started in the home directory: a new dotfile (~/.bash_aliases, which
	// ~/.bashrc sources), ~/bin or ~/Go (~/go on a case-insensitive file
	// system) made by the command is moved aside;
	// other new entries, and the dotfiles there before, stay.
	home := ostest.OutsideTemp(t)
	if err := os.WriteFile(filepath.Join(home, ".profile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	shm, _ := Builtin(Options{Cwd: home, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + home}, Sandbox: nop, ShellTimeout: 10 * time.Second, MaxOutput: 1 << 12}).Get("shell")
	argsm, _ := json.Marshal(map[string]string{"command": "echo x > .bash_aliases && mkdir bin Go newdir && echo y > notes.txt && echo z >> .profile"})
	resm := shm.Run(context.Background(), argsm)
	for _, name := range []string{".bash_aliases", "bin", "Go"} {
		if !strings.Contains(resm.Text, "[refused: the command created "+name+" ") {
			t.Errorf("in the home directory: result %q; want %s refused", resm.Text, name)
		}
		if _, err := os.Lstat(filepath.Join(home, name)); err == nil {
			t.Errorf("~/%s, made by a confined command started in ~, stayed in place", name)
		}
	}
	for _, name := range []string{"newdir", "notes.txt", ".profile"} {
		if _, err := os.Lstat(filepath.Join(home, name)); err != nil {
			t.Errorf("~/%s was moved: %v", name, err)
		}
	}
	// Names taken beforehand by the command itself do not keep its
	// metadata in place: past -9 the name is one it could not foresee.
	ws0 := ostest.OutsideTemp(t)
	sh0, _ := Builtin(Options{Cwd: ws0, Env: []string{"PATH=/usr/bin:/bin"}, Sandbox: nop, ShellTimeout: 10 * time.Second, MaxOutput: 1 << 12}).Get("shell")
	args0, _ := json.Marshal(map[string]string{"command": "mkdir sub && for i in '' $(seq -f -%g 2 100); do mkdir sub/.git.refused-by-sandbox$i; done; mkdir sub/.git"})
	if res := sh0.Run(context.Background(), args0); !strings.Contains(res.Text, "moved to .git.refused-by-sandbox-") {
		t.Errorf("with the names taken: result %q; want sub/.git moved aside", res.Text)
	}
	if _, err := os.Lstat(filepath.Join(ws0, "sub", ".git")); err == nil {
		t.Error("with the names taken beforehand, sub/.git stayed in place")
	}
	// A second refusal of the same name takes the next free name.
	ws := ostest.OutsideTemp(t)
	sh, _ := Builtin(Options{Cwd: ws, Env: []string{"PATH=/usr/bin:/bin"}, Sandbox: nop, ShellTimeout: 10 * time.Second, MaxOutput: 1 << 12}).Get("shell")
	args, _ := json.Marshal(map[string]string{"command": "mkdir .claude"})
	sh.Run(context.Background(), args)
	sh.Run(context.Background(), args)
	for _, p := range []string{".claude.refused-by-sandbox", ".claude.refused-by-sandbox-2"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestShellSetAsideNoteBounded: the note naming what a confined command
// made and what was moved aside keeps the result within MaxOutput however
// many it made, and valid UTF-8 whatever their names.
func TestShellSetAsideNoteBounded(t *testing.T) {
	ws := ostest.OutsideTemp(t)
	nop := func(*exec.Cmd, bool, bool) error { return nil }
	const limit = 1 << 10
	o := Options{Cwd: ws, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + ws, "TMPDIR=" + t.TempDir()}, Sandbox: nop, ShellTimeout: 10 * time.Second, MaxOutput: limit}
	sh, _ := Builtin(o).Get("shell")
	args, _ := json.Marshal(map[string]string{"command": `for i in $(seq 1 60); do mkdir -p "d$i/.git"; done; mkdir -p "$(printf 'bad\377name')/.claude"`})
	res := sh.Run(context.Background(), args)
	if len(res.Text) > limit {
		t.Errorf("result of %d bytes, over MaxOutput %d", len(res.Text), limit)
	}
	if !utf8.ValidString(res.Text) {
		t.Errorf("result %q is not valid UTF-8", res.Text)
	}
	if !strings.Contains(res.Text, "[refused: the command created ") {
		t.Errorf("result %q does not say what was refused", res.Text)
	}
	if _, err := os.Lstat(filepath.Join(ws, "d60", ".git")); err == nil {
		t.Error("d60/.git stayed in place")
	}
}

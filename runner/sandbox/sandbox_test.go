package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	Main() // the test binary is its own launcher
	if op := os.Getenv("SANDBOX_NETPROBE"); op != "" {
		os.Exit(netProbe(op, os.Getenv("SANDBOX_NETPROBE_ARG")))
	}
	os.Exit(m.Run())
}

func TestDefaults(t *testing.T) {
	env := []string{"HOME=/home/u", "GOMODCACHE=/mods", "TMPDIR=relative", "PATH=/bin", "CARGO_HOME=/ch", "RUSTUP_HOME=/rh"}
	got := Defaults("/work/ws", env, []string{"/extra", "/work/ws", "rel"})
	want := []string{"/work/ws", filepath.Clean(os.TempDir()), "/tmp", BuildCache("/work/ws", env), ownCache("npm", "/work/ws", env), "/extra"}
	want = slices.Compact(want)
	if !slices.Equal(got, want) {
		t.Errorf("Defaults =\n %q; want\n %q", got, want)
	}
	// No cache of the person's: extracted sources (Go's module trees,
	// Cargo's registry/src and git/checkouts, npx's packages, ~/.cache's
	// other tenants such as pre-commit), downloads extracted later without
	// a new check (Go's module zips, Cargo's .crate files and git
	// databases), metadata a later resolution trusts (Cargo's index, npm's
	// cache), Go's build cache, and the homes that hold programs.
	for _, bad := range []string{"relative", "rel", "/home/u", "/home/u/.cache", "/home/u/.cache/go-build", "/home/u/go/pkg/mod", "/mods",
		"/mods/cache", "/mods/cache/download", "/home/u/go/pkg/mod/cache/download", "/ch/registry/cache", "/ch/git/db", "/ch/registry/index", "/home/u/.cargo/registry/index",
		"/home/u/.npm/_cacache", "/home/u/.npm/_logs", "/home/u/.npm/_npx",
		"/home/u/.npm", "/home/u/.cargo", "/ch", "/ch/registry", "/ch/git", "/home/u/.rustup", "/rh"} {
		if slices.Contains(got, bad) {
			t.Errorf("Defaults = %q; holds %q", got, bad)
		}
	}
	// Unset variables: the own caches below XDG_CACHE_HOME; GOPATH and
	// HOME's caches add nothing.
	env = []string{"HOME=/h", "GOPATH=/gp:/gp2", "XDG_CACHE_HOME=/xc"}
	got = Defaults("/w", env, nil)
	want = slices.Compact([]string{"/w", filepath.Clean(os.TempDir()), "/tmp", BuildCache("/w", env), ownCache("npm", "/w", env)})
	if !slices.Equal(got, want) {
		t.Errorf("Defaults without cache variables =\n %q; want\n %q", got, want)
	}
	// The person's GOCACHE and npm cache, named or by default, are never
	// writable.
	got = Defaults("/w", []string{"HOME=/h", "GOCACHE=/gc", "XDG_CACHE_HOME=/xc", "npm_config_cache=/nc"}, nil)
	for _, bad := range []string{"/gc", "/xc/go-build", "/h/.cache/go-build", "/nc", "/nc/_cacache", "/h/.npm/_cacache"} {
		if slices.Contains(got, bad) {
			t.Errorf("Defaults = %q; holds the person's build cache %q", got, bad)
		}
	}
}

// TestBuildCache: confined commands' Go build cache lies below the user
// cache directory (XDG_CACHE_HOME when absolute, else HOME/.cache), in
// magi-code/go-build, one per workspace; never the person's GOCACHE.
func TestBuildCache(t *testing.T) {
	a := BuildCache("/work/a", []string{"HOME=/h"})
	b := BuildCache("/work/b", []string{"HOME=/h"})
	if dir, _ := filepath.Split(a); dir != "/h/.cache/magi-code/go-build/" {
		t.Errorf("BuildCache(/work/a, HOME=/h) = %q; want it in /h/.cache/magi-code/go-build", a)
	}
	if a == b || filepath.Dir(a) != filepath.Dir(b) {
		t.Errorf("two workspaces share or scatter a build cache: %q, %q", a, b)
	}
	if got := BuildCache("/work/a/", []string{"HOME=/h"}); got != a {
		t.Errorf("BuildCache of the same workspace spelt /work/a/ = %q; want %q", got, a)
	}
	for _, tc := range []struct {
		cwd  string
		env  []string
		want string // the directory of the result; "" for none
	}{
		{"/w", []string{"HOME=/h", "XDG_CACHE_HOME=/xc"}, "/xc/magi-code/go-build"},
		{"/w", []string{"XDG_CACHE_HOME=rel", "HOME=/h"}, "/h/.cache/magi-code/go-build"},
		{"/w", []string{"HOME=/old", "HOME=/h"}, "/h/.cache/magi-code/go-build"},
		{"/w", []string{"HOME=/h", "GOCACHE=/gc"}, "/h/.cache/magi-code/go-build"},
		{"/w", []string{"HOME=rel"}, ""},
		{"/w", nil, ""},
		{"rel", []string{"HOME=/h"}, ""},
	} {
		got := BuildCache(tc.cwd, tc.env)
		if tc.want == "" && got != "" || tc.want != "" && filepath.Dir(got) != tc.want {
			t.Errorf("BuildCache(%q, %q) = %q; want it in %q", tc.cwd, tc.env, got, tc.want)
		}
	}
}

// TestOwnCaches: the variables a confined command gets are GOCACHE and
// npm_config_cache, each naming its own directory of the workspace below
// magi-code in the user cache directory, none when there is no absolute
// one.
func TestOwnCaches(t *testing.T) {
	env := []string{"HOME=/h", "npm_config_cache=/nc"}
	got := OwnCaches("/work/a", env)
	sum := filepath.Base(BuildCache("/work/a", env))
	want := []string{"GOCACHE=/h/.cache/magi-code/go-build/" + sum, "npm_config_cache=/h/.cache/magi-code/npm/" + sum}
	if !slices.Equal(got, want) {
		t.Errorf("OwnCaches = %q; want %q", got, want)
	}
	if got := OwnCaches("/work/b", env); slices.Equal(got, want) || len(got) != 2 {
		t.Errorf("two workspaces share npm and Go caches: %q", got)
	}
	if got := OwnCaches("/w", []string{"HOME=rel"}); got != nil {
		t.Errorf("OwnCaches without a cache directory = %q; want none", got)
	}
}

func TestWrap(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "echo hi")
	p := Policy{Writable: []string{"/w"}, Network: true}
	if err := p.Wrap(cmd, "/usr/bin/magi-code"); err != nil {
		t.Fatal(err)
	}
	want := []string{"/usr/bin/magi-code", SupervisorArg, `{"writable":["/w"],"network":true}`, "/bin/sh", "-c", "echo hi"}
	if cmd.Path != "/usr/bin/magi-code" || !slices.Equal(cmd.Args, want) {
		t.Errorf("Wrap: %q %q; want %q", cmd.Path, cmd.Args, want)
	}
	if err := p.Wrap(&exec.Cmd{Path: "sh", Args: []string{"sh"}}, "/usr/bin/magi-code"); err == nil {
		t.Error("Wrap of a relative command path succeeded")
	}
}

func TestSuperviseRefusesBadInput(t *testing.T) {
	for _, args := range [][]string{{"{}"}, {"not json", "/bin/true"}} {
		var b strings.Builder
		if got := supervise(args, &b); got != LauncherFailed || b.Len() == 0 {
			t.Errorf("supervise(%q) = %d, %q; want %d and a reason", args, got, b.String(), LauncherFailed)
		}
	}
}

func TestLaunchRefusesBadInput(t *testing.T) {
	var b strings.Builder
	if got := launch([]string{"{"}, &b); got != LauncherFailed {
		t.Errorf("launch without a command = %d", got)
	}
	if got := launch([]string{"not json", "/bin/true"}, &b); got != LauncherFailed || !strings.Contains(b.String(), "bad policy") {
		t.Errorf("launch with a bad policy = %d, %q", got, b.String())
	}
}

// requireLandlock skips, with the reason, where the kernel offers no
// Landlock sandbox; this machine's kernel has one.
func requireLandlock(t *testing.T) {
	t.Helper()
	if st := Probe(); !st.Available {
		t.Skipf("no OS sandbox here: %s", st.Reason)
	}
}

// TestConfined runs real commands (sh, python3, perl) through the launcher
// under a policy that allows writing only the workspace: writes and deletes
// inside succeed; writing, deleting or renaming the canary outside fails,
// whatever the language; the canary survives.
func TestConfined(t *testing.T) {
	requireLandlock(t)
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	canary := filepath.Join(home, "canary")
	for _, d := range []string{ws, canary} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(canary, "egg"), []byte("alive"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Policy{Writable: []string{ws}}
	run := func(name string, args ...string) (string, bool) {
		path, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("%s not installed", name)
		}
		cmd := exec.Command(path, args...)
		cmd.Dir = ws
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
		if err := p.Wrap(cmd, self); err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	if out, ok := run("sh", "-c", "echo in > inside && mkdir -p d/e && touch d/e/f && rm -rf d && cat inside"); !ok || out != "in\n" {
		t.Fatalf("writing inside the workspace: ok=%v %q", ok, out)
	}
	// A link or rename from one directory to another inside (as rustc
	// and git do; mv would fall back to a copy).
	if out, ok := run("sh", "-c", "mkdir a b && echo x > a/f && ln a/f b/g && ln -s x a/s && rm -f a/f && cat b/g"); !ok || out != "x\n" {
		t.Fatalf("linking across directories inside the workspace: ok=%v %q", ok, out)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"sh", []string{"-c", "rm -rf " + canary}},
		{"sh", []string{"-c", "echo x > " + filepath.Join(canary, "egg")}},
		{"sh", []string{"-c", ": > " + filepath.Join(canary, "egg")}}, // truncate
		{"sh", []string{"-c", "mv " + canary + " " + filepath.Join(ws, "stolen")}},
		{"sh", []string{"-c", "ln " + filepath.Join(canary, "egg") + " hard && : > hard"}},
		{"python3", []string{"-c", "import os,sys; os.replace(sys.argv[1], 'moved')", filepath.Join(canary, "egg")}},
		{"sh", []string{"-c", "echo x > " + filepath.Join(home, "new")}},
		{"python3", []string{"-c", "import shutil,sys; shutil.rmtree(sys.argv[1])", canary}},
		{"perl", []string{"-MFile::Path=rmtree", "-e", "rmtree($ARGV[0]) ; exit(-e $ARGV[0] ? 1 : 0)", canary}},
	} {
		out, ok := run(tc.name, tc.args...)
		if ok {
			t.Errorf("%s %q succeeded outside the workspace: %q", tc.name, tc.args, out)
		}
		if data, err := os.ReadFile(filepath.Join(canary, "egg")); err != nil || string(data) != "alive" {
			t.Fatalf("after %s %q the canary is %q, %v", tc.name, tc.args, data, err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "new")); err == nil {
		t.Error("a file was created outside the workspace")
	}
}

// BenchmarkLaunch measures one confined /bin/true through the launcher
// (this test binary), the cost a sandboxed shell command adds; compare
// BenchmarkUnconfined.
func BenchmarkLaunch(b *testing.B) {
	if st := Probe(); !st.Available {
		b.Skipf("no OS sandbox here: %s", st.Reason)
	}
	self, err := Self()
	if err != nil {
		b.Fatal(err)
	}
	p := Policy{Writable: Defaults(b.TempDir(), []string{"HOME=" + os.Getenv("HOME")}, nil), Network: true}
	for b.Loop() {
		cmd := exec.Command("/bin/true")
		if err := p.Wrap(cmd, self); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnconfined is /bin/true started directly.
func BenchmarkUnconfined(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStatusText: config show and the log say how the network stands:
// open by the settings, closed unless asked for, or not closable here.
func TestStatusText(t *testing.T) {
	st := Status{Available: true, ABI: 6, NetworkClosable: true}
	// How version control metadata stays read-only: by the mounts where
	// the launcher has a namespace, else by per-entry grants.
	if got := st.Text(ModeWorkspaceWrite, false); !strings.Contains(got, "; .git protected by per-entry grants: new files at the repository's top level are refused; ") {
		t.Errorf("without mounts: %q", got)
	}
	for _, m := range []string{MountsNS, MountsUserNS} {
		if got := (Status{Available: true, ABI: 6, NetworkClosable: true, Mounts: m}).Text(ModeWorkspaceWrite, false); !strings.Contains(got, "; .git protected by read-only mounts; ") {
			t.Errorf("with mounts %s: %q", m, got)
		}
	}
	for _, tc := range []struct {
		st      Status
		network bool
		want    string
	}{
		{st, true, "; network open (settings)"},
		{st, false, "; no network unless the person allows a command that asks for it"},
		{Status{Available: true, ABI: 6}, false, "; the network cannot be closed on this architecture: every shell command asks"},
	} {
		if got := tc.st.Text(ModeWorkspaceWrite, tc.network); !strings.HasPrefix(got, "workspace-write under approval = auto (Landlock ABI 6)") || !strings.HasSuffix(got, tc.want) {
			t.Errorf("%+v network %v: %q; want it to end %q", tc.st, tc.network, got, tc.want)
		}
	}
}

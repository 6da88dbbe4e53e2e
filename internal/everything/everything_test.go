//go:build unix

package everything

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fakeTB records a Skip or a Fatal and ends the goroutine, as testing.T
// does.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skip(args ...any) {
	f.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatal(args ...any) {
	f.failed = fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

type result struct {
	node, entry, skipped, failed string
}

// entry runs Entry with a fakeTB on its own goroutine.
func entry() result {
	f := &fakeTB{}
	var r result
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.node, r.entry = Entry(f)
	}()
	<-done
	r.skipped, r.failed = f.skipped, f.failed
	return r
}

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

const pkgJSON = `{"name":"@modelcontextprotocol/server-everything","bin":{"mcp-server-everything":"dist/index.js"}}`

// pkgDir is where a module root's .tools holds the package.
func pkgDir(root string) string {
	return filepath.Join(root, ".tools", "node_modules", "@modelcontextprotocol", "server-everything")
}

// sandbox gives the test a PATH holding only the named fake programs and a
// module root (go.mod, a Makefile pinning 1.2.3) as working directory
// under a subdirectory, as a test package's directory is.
func sandbox(t *testing.T, programs map[string]string) (root, bin string) {
	t.Helper()
	base := t.TempDir()
	bin = filepath.Join(base, "bin")
	root = filepath.Join(base, "repo")
	for name, script := range programs {
		write(t, filepath.Join(bin, name), "#!/bin/sh\n"+script+"\n", 0o755)
	}
	write(t, filepath.Join(root, "go.mod"), "module example.com/x\n", 0o644)
	write(t, filepath.Join(root, "Makefile"), "GO ?= go\nEVERYTHING_VERSION := 1.2.3\nall:\n", 0o644)
	if err := os.MkdirAll(filepath.Join(root, "internal", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "internal", "pkg"))
	t.Setenv("PATH", bin)
	t.Setenv("MAGI_MCP_EVERYTHING", "")
	return root, bin
}

func TestEntryNoNode(t *testing.T) {
	sandbox(t, nil)
	if r := entry(); !strings.Contains(r.skipped, "node not found") || r.failed != "" {
		t.Fatalf("without node: %+v; want a skip naming node", r)
	}
}

func TestEntryFromEnvironment(t *testing.T) {
	_, bin := sandbox(t, map[string]string{"node": "exit 0"})
	dir := t.TempDir()
	write(t, filepath.Join(dir, "package.json"), `{"bin":"cli.js"}`, 0o644)
	t.Setenv("MAGI_MCP_EVERYTHING", dir)
	r := entry()
	if r.node != filepath.Join(bin, "node") || r.entry != filepath.Join(dir, "cli.js") || r.skipped != "" || r.failed != "" {
		t.Fatalf("from MAGI_MCP_EVERYTHING: %+v", r)
	}
	// A directory named on purpose that holds no package is an error, not
	// a reason to skip.
	t.Setenv("MAGI_MCP_EVERYTHING", t.TempDir())
	if r := entry(); !strings.Contains(r.failed, "MAGI_MCP_EVERYTHING=") || r.skipped != "" {
		t.Fatalf("MAGI_MCP_EVERYTHING without a package: %+v; want a failure", r)
	}
}

func TestEntryFromTools(t *testing.T) {
	root, _ := sandbox(t, map[string]string{"node": "exit 0", "npm": "exit 1"})
	write(t, filepath.Join(pkgDir(root), "package.json"), pkgJSON, 0o644)
	if r := entry(); r.entry != filepath.Join(pkgDir(root), "dist", "index.js") || r.skipped != "" || r.failed != "" {
		t.Fatalf("from .tools: %+v", r)
	}
}

// In a linked git worktree (.git is a file naming MAIN/.git/worktrees/X),
// the main worktree's .tools is used when the worktree has none.
func TestEntryFromMainWorktree(t *testing.T) {
	root, _ := sandbox(t, map[string]string{"node": "exit 0"})
	main := t.TempDir()
	write(t, filepath.Join(pkgDir(main), "package.json"), pkgJSON, 0o644)
	write(t, filepath.Join(root, ".git"), "gitdir: "+filepath.Join(main, ".git", "worktrees", "x")+"\n", 0o644)
	if r := entry(); r.entry != filepath.Join(pkgDir(main), "dist", "index.js") || r.failed != "" || r.skipped != "" {
		t.Fatalf("from the main worktree: %+v", r)
	}
}

func TestMainWorktree(t *testing.T) {
	for _, c := range []struct{ name, git, want string }{
		{"linked", "gitdir: /src/main/.git/worktrees/w\n", "/src/main"},
		{"submodule", "gitdir: /src/main/.git/modules/m\n", "/src/main"},
		{"not under .git", "gitdir: /elsewhere/gitdirs/w\n", ""},
		{"not a gitdir line", "ref: x\n", ""},
	} {
		root := t.TempDir()
		write(t, filepath.Join(root, ".git"), c.git, 0o644)
		if got := mainWorktree(root); got != c.want {
			t.Errorf("%s: mainWorktree = %q; want %q", c.name, got, c.want)
		}
	}
	if got := mainWorktree(t.TempDir()); got != "" {
		t.Errorf("no .git: mainWorktree = %q; want \"\"", got)
	}
}

func TestEntryNoNPM(t *testing.T) {
	sandbox(t, map[string]string{"node": "exit 0"})
	if r := entry(); !strings.Contains(r.skipped, "npm is not found") || r.failed != "" {
		t.Fatalf("without npm: %+v; want a skip", r)
	}
}

// Missing everywhere, with npm: Entry installs the version the Makefile
// pins into the module's .tools, then finds it there.
func TestEntryInstallsPinnedVersion(t *testing.T) {
	root, bin := sandbox(t, map[string]string{"node": "exit 0"})
	args := filepath.Join(t.TempDir(), "args")
	dir := "$7/node_modules/@modelcontextprotocol/server-everything" // $7: the --prefix value
	write(t, filepath.Join(bin, "npm"), fmt.Sprintf("#!/bin/sh\nPATH=/usr/bin:/bin\necho \"$@\" > %s\n"+
		"mkdir -p %s && echo '%s' > %s/package.json\n", args, dir, pkgJSON, dir), 0o755)
	r := entry()
	if r.entry != filepath.Join(pkgDir(root), "dist", "index.js") || r.failed != "" || r.skipped != "" {
		t.Fatalf("after the install: %+v", r)
	}
	got, _ := os.ReadFile(args)
	want := "install --silent --no-audit --no-fund --save-exact --prefix " + filepath.Join(root, ".tools") +
		" @modelcontextprotocol/server-everything@1.2.3\n"
	if string(got) != want {
		t.Fatalf("npm ran with %q; want %q", got, want)
	}
}

func TestEntryInstallFails(t *testing.T) {
	sandbox(t, map[string]string{"node": "exit 0", "npm": "echo 'network unreachable'; exit 1"})
	if r := entry(); !strings.Contains(r.skipped, "server-everything@1.2.3 failed") ||
		!strings.Contains(r.skipped, "network unreachable") || r.failed != "" {
		t.Fatalf("failed install: %+v; want a skip with npm's output", r)
	}
	// An install that claims success but leaves no package is a failure.
	sandbox(t, map[string]string{"node": "exit 0", "npm": "exit 0"})
	if r := entry(); !strings.Contains(r.failed, "after npm install") {
		t.Fatalf("install leaving nothing: %+v; want a failure", r)
	}
}

func TestEntryWithoutPin(t *testing.T) {
	root, _ := sandbox(t, map[string]string{"node": "exit 0", "npm": "exit 0"})
	write(t, filepath.Join(root, "Makefile"), "all:\n", 0o644)
	if r := entry(); !strings.Contains(r.failed, "EVERYTHING_VERSION not found") {
		t.Fatalf("Makefile without the pin: %+v; want a failure", r)
	}
	if err := os.Remove(filepath.Join(root, "Makefile")); err != nil {
		t.Fatal(err)
	}
	if r := entry(); r.failed == "" {
		t.Fatalf("no Makefile: %+v; want a failure", r)
	}
}

func TestEntryOutsideModule(t *testing.T) {
	sandbox(t, map[string]string{"node": "exit 0"})
	t.Chdir(t.TempDir())
	if r := entry(); !strings.Contains(r.failed, "no go.mod above") {
		t.Fatalf("outside a module: %+v; want a failure", r)
	}
}

// The repository's own Makefile pins a version Entry can read.
func TestPinnedVersionOfThisRepository(t *testing.T) {
	v, err := pinnedVersion(filepath.Join("..", "..", "Makefile"))
	if err != nil || v == "" || strings.ContainsAny(v, " \t$") {
		t.Fatalf("pinnedVersion(Makefile) = %q, %v; want a literal version", v, err)
	}
}

func TestEntryOf(t *testing.T) {
	for _, c := range []struct{ name, pkg, want string }{
		{"string bin", `{"bin":"a.js"}`, "a.js"},
		{"map bin", `{"bin":{"x":"b.js"}}`, "b.js"},
		{"no bin", `{"name":"x"}`, ""},
		{"empty bin", `{"bin":""}`, ""},
		{"empty map", `{"bin":{}}`, ""},
		{"not JSON", `{`, ""},
	} {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "package.json"), c.pkg, 0o644)
		got, err := entryOf(dir)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: entryOf = %q; want an error", c.name, got)
			}
			continue
		}
		if err != nil || got != filepath.Join(dir, c.want) {
			t.Errorf("%s: entryOf = %q, %v; want %s", c.name, got, err, c.want)
		}
	}
	if _, err := entryOf(t.TempDir()); err == nil {
		t.Error("entryOf without package.json succeeded")
	}
}

// The install lock is exclusive while held (another open of the file
// cannot take it) and free after unlock.
func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".install.lock")
	unlock, err := lock(path)
	if err != nil {
		t.Fatal(err)
	}
	try := func() error {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err := try(); err != unix.EWOULDBLOCK {
		t.Fatalf("flock while held: %v; want EWOULDBLOCK", err)
	}
	unlock()
	if err := try(); err != nil {
		t.Fatalf("flock after unlock: %v", err)
	}
	if _, err := lock(filepath.Join(t.TempDir(), "missing", "lock")); err == nil {
		t.Fatal("lock in a missing directory succeeded")
	}
}

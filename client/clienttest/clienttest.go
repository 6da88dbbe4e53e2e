// Package clienttest helps whole-process tests: it finds or builds the
// magi-code binary once (Main, Binary), makes a temporary MC_HOME with
// settings and fixture scripts (NewWorkspace, NewFixtureWorkspace), starts
// a child through real pipes with a minimal environment (Workspace.Start,
// Spawn, StartChild) whose every output frame is validated against the
// published schema (protocol/schema.json), drives it with test-bound helpers (Child), checks
// each run's events against the protocol's order and chunk rules (CheckRun) and
// pages through history checking the page bounds (Child.History).
package clienttest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/protocol/schemacheck"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary returns the path of bin/magi-code: $MAGI_CODE_BIN when set (make
// test and Main set it), else a fresh `go build` into a temporary directory,
// once per test process. That directory stays behind: packages of
// whole-process tests use Main, which removes what it builds.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("MAGI_CODE_BIN"); p != "" {
		return p
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "magi-code-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "magi-code")
		buildErr = build(binPath, "./cmd/magi-code")
	})
	if buildErr != nil {
		t.Fatalf("building magi-code: %v", buildErr)
	}
	return binPath
}

// build runs `go build -o out pkg` in the module root; pkg is relative to it.
func build(out, pkg string) error {
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	if b, err := cmd.CombinedOutput(); err != nil {
		return &buildError{out: b, err: err}
	}
	return nil
}

type buildError struct {
	out []byte
	err error
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }

// Tool is a program a test package builds once in Main: Pkg is its package
// path relative to the module root ("./e2e/runner/testdata/mcpserver"), and
// Main stores the built binary's path in *Path.
type Tool struct {
	Pkg  string
	Path *string
}

// Main is a whole-process test package's TestMain: it builds the magi-code
// binary into a temporary directory and points MAGI_CODE_BIN at it (unless
// MAGI_CODE_BIN names one already), builds each tool into the same
// directory, runs the tests under goleak.VerifyTestMain and removes the
// directory. A failed build exits 1 with the compiler's output on stderr.
func Main(m *testing.M, tools ...Tool) {
	dir, err := os.MkdirTemp("", "magi-code-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fail := func(what string, err error) {
		fmt.Fprintf(os.Stderr, "building %s: %v\n", what, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	if os.Getenv("MAGI_CODE_BIN") == "" {
		bin := filepath.Join(dir, "magi-code")
		if err := build(bin, "./cmd/magi-code"); err != nil {
			fail("magi-code", err)
		}
		os.Setenv("MAGI_CODE_BIN", bin)
	}
	for _, tool := range tools {
		out := filepath.Join(dir, filepath.Base(tool.Pkg))
		if err := build(out, tool.Pkg); err != nil {
			fail(tool.Pkg, err)
		}
		*tool.Path = out
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// Workspace is a temporary MC_HOME and working directory.
type Workspace struct {
	Home string // MC_HOME
	Cwd  string // the child's cwd
}

// FixtureSettings is a global settings file selecting the fixture provider.
const FixtureSettings = "provider = \"fixture\"\nmodel = \"fixture-model\"\n"

// NewWorkspace makes a workspace whose global settings.toml holds settings
// (none when empty).
func NewWorkspace(t testing.TB, settings string) *Workspace {
	t.Helper()
	root := t.TempDir()
	w := &Workspace{Home: filepath.Join(root, "home"), Cwd: filepath.Join(root, "work")}
	for _, d := range []string{w.Home, w.Cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if settings != "" {
		w.WriteFile(t, filepath.Join(w.Home, "settings.toml"), settings)
	}
	return w
}

// WriteFile writes a file, creating its directory.
func (w *Workspace) WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Env is the child's whole environment: MC_HOME, HOME, PATH only.
func (w *Workspace) Env() []string {
	return []string{"MC_HOME=" + w.Home, "HOME=" + filepath.Dir(w.Home), "PATH=" + os.Getenv("PATH")}
}

// Start starts `magi-code serve --stdio` in the workspace. opts.Bin, Dir and
// Env are filled in when empty. The child is killed at cleanup.
func (w *Workspace) Start(t testing.TB, opts client.Options) *client.Client {
	t.Helper()
	if opts.Bin == "" {
		opts.Bin = Binary(t)
	}
	if opts.Dir == "" {
		opts.Dir = w.Cwd
	}
	if opts.Env == nil {
		opts.Env = w.Env()
	}
	if opts.CheckFrame == nil {
		// Every frame a whole-process test reads must match the published
		// schema: a field added, renamed or mistyped anywhere fails.
		opts.CheckFrame = schemacheck.Validate
	}
	c, err := client.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("starting magi-code: %v", err)
	}
	t.Cleanup(func() {
		c.Kill()
		waited := make(chan struct{})
		go func() { _, _, _ = c.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(HangGuard):
			// The child is killed; something it started still holds
			// its pipes open.
			t.Errorf("the killed child's output did not end within %v", HangGuard)
			return
		}
		if err := c.CheckErr(); err != nil {
			t.Errorf("child output: %v", err)
		}
	})
	return c
}

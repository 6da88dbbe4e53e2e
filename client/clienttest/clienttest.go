// Package clienttest helps whole-process tests: it finds or builds the
// magi-code binary once, makes a temporary MC_HOME with settings, and starts
// a child through real pipes with a minimal environment.
package clienttest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/magi-code/magi-code/client"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary returns the path of bin/magi-code: $MAGI_CODE_BIN when set (make
// test sets it), else a fresh `go build` into a temporary directory, once
// per test process.
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
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/magi-code")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = &buildError{out: out, err: err}
		}
	})
	if buildErr != nil {
		t.Fatalf("building magi-code: %v", buildErr)
	}
	return binPath
}

type buildError struct {
	out []byte
	err error
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }

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
	c, err := client.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("starting magi-code: %v", err)
	}
	t.Cleanup(func() {
		c.Kill()
		_, _, _ = c.Wait()
	})
	return c
}

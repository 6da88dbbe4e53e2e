package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
)

// world is a temporary MC_HOME and cwd. Files are written by a path that
// starts with "home/" or "cwd/".
type world struct {
	root, home, cwd string
	vars            map[string]string
	now             time.Time
	logs            []string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{root: root, home: filepath.Join(root, "mchome"), cwd: filepath.Join(root, "work"),
		vars: map[string]string{}, now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if err := os.MkdirAll(w.cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) path(rel string) string {
	switch {
	case strings.HasPrefix(rel, "home/"):
		return filepath.Join(w.home, rel[len("home/"):])
	case strings.HasPrefix(rel, "cwd/"):
		return filepath.Join(w.cwd, rel[len("cwd/"):])
	}
	return filepath.Join(w.root, rel)
}

func (w *world) write(t testing.TB, rel, text string, mode os.FileMode) {
	t.Helper()
	p := w.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // WriteFile's mode is subject to umask
		t.Fatal(err)
	}
}

func (w *world) env() Env {
	return Env{
		MCHome: w.home, Home: w.root, Cwd: w.cwd,
		Getenv: func(k string) string { return w.vars[k] },
		Now:    func() time.Time { return w.now },
		Logf:   func(f string, a ...any) { w.logs = append(w.logs, f) },
	}
}

func (w *world) load(t testing.TB) (*Snapshot, protocol.Code) {
	t.Helper()
	return Load(context.Background(), w.env())
}

const fixtureGlobal = "provider = \"fixture\"\n"

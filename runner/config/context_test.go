package config

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestContextID(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	base, code := w.load(t)
	if code != "" {
		t.Fatalf("Load = %q", code)
	}
	if len(base.ContextID) != 64 {
		t.Fatalf("ContextID %q is not hex SHA-256", base.ContextID)
	}
	// Aliases: a symlink to MC_HOME and a symlink to the cwd.
	homeLink := filepath.Join(w.root, "home-link")
	cwdLink := filepath.Join(w.root, "cwd-link")
	if err := os.Symlink(w.home, homeLink); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.Symlink(w.cwd, cwdLink); err != nil {
		t.Fatal(err)
	}
	otherCwd := filepath.Join(w.root, "other")
	otherHome := filepath.Join(w.root, "otherhome")
	os.Mkdir(otherCwd, 0o755)
	os.MkdirAll(otherHome, 0o700)
	os.WriteFile(filepath.Join(otherHome, "settings.toml"), []byte(fixtureGlobal), 0o644)
	// A home whose sessions directory is a symlink to somewhere else is a
	// different storage root.
	splitHome := filepath.Join(w.root, "splithome")
	os.MkdirAll(splitHome, 0o700)
	os.WriteFile(filepath.Join(splitHome, "settings.toml"), []byte(fixtureGlobal), 0o644)
	os.Symlink(filepath.Join(w.home, "sessions"), filepath.Join(splitHome, "sessions"))

	tests := []struct {
		name      string
		home, cwd string
		same      bool
	}{
		{"same paths", w.home, w.cwd, true},
		{"home alias", homeLink, w.cwd, true},
		{"cwd alias", w.home, cwdLink, true},
		{"both aliases, unclean", homeLink + "/.", cwdLink + "/../cwd-link", true},
		{"other cwd", w.home, otherCwd, false},
		{"other home", otherHome, w.cwd, false},
		{"shared sessions, other home", splitHome, w.cwd, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := w.env()
			env.MCHome, env.Cwd = tc.home, tc.cwd
			snap, code := Load(context.Background(), env)
			if code != "" {
				t.Fatalf("Load = %q (logs %q)", code, w.logs)
			}
			if got := snap.ContextID == base.ContextID; got != tc.same {
				t.Fatalf("same context id = %v; want %v", got, tc.same)
			}
		})
	}
}

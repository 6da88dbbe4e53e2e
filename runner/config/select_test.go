package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetSelectionKeepsTheRestOfTheFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "settings.toml")
	const before = "# my settings\nschema_version = 2\nprovider = \"fixture\"   # offline\n\n[providers.openai]\nmodel = \"keep-me\"  # table key, not the top-level one\n"
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	env := Env{MCHome: home}
	if err := SetSelection(env, "openai", "gpt-x"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "# my settings\nschema_version = 2\nprovider = \"openai\" # offline\nmodel = \"gpt-x\"\n\n[providers.openai]\nmodel = \"keep-me\"  # table key, not the top-level one\n"
	if string(got) != want {
		t.Fatalf("settings after SetSelection:\n%s\nwant:\n%s", got, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v; want 0600 kept", st.Mode().Perm())
	}
	// A second call replaces in place.
	if err := SetSelection(env, "anthropic", "claude-y"); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(path)
	if strings.Count(string(got), "provider =") != 1 || !strings.Contains(string(got), "model = \"claude-y\"\n\n[providers.openai]") {
		t.Fatalf("second SetSelection:\n%s", got)
	}
	if err := SetSelection(env, "bogus", ""); err == nil {
		t.Fatal("an unknown provider was written")
	}
}

func TestSetSelectionCreatesTheFile(t *testing.T) {
	home := filepath.Join(t.TempDir(), "mc")
	if err := SetSelection(Env{MCHome: home}, "fixture", ""); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(home, "settings.toml"))
	if err != nil || string(got) != "schema_version = 2\nprovider = \"fixture\"\n" {
		t.Fatalf("new settings = %q, %v", got, err)
	}
	d, err := Describe(Env{MCHome: home, Cwd: t.TempDir()})
	if err != nil || d.Readiness != "" {
		t.Fatalf("Describe after SetSelection = %v, readiness %q; want ready", err, d.Readiness)
	}
}

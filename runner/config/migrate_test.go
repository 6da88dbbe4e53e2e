package config

import (
	"os"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

func TestMigrateGlobalRewritten(t *testing.T) {
	w := newWorld(t)
	v1 := "# my settings\nprovider = \"openai\"\nmodel = \"m\"\napproval_policy = \"auto\"\napi_key_env = \"MY_KEY\"\n[providers.openai]\nbase_url = \"http://127.0.0.1:9/v1\"\n"
	w.write(t, "home/settings.toml", v1, 0o640)
	w.vars["MY_KEY"] = "k"
	snap, code := w.load(t)
	if code != "" {
		t.Fatalf("Load = %q (logs %q)", code, w.logs)
	}
	if snap.Settings.Tools.Approval != "auto" || snap.Settings.Providers.OpenAI.APIKeyEnv != "MY_KEY" || snap.Settings.SchemaVersion != SchemaVersion {
		t.Fatalf("migrated settings = %+v", snap.Settings)
	}
	// The rewrite succeeded: no line says it failed.
	if all := strings.Join(w.logs, "\n"); strings.Contains(all, "could not rewrite") {
		t.Errorf("logs after a successful rewrite = %q; want no 'could not rewrite'", all)
	}
	bak, err := os.ReadFile(w.path("home/settings.toml.v1.bak"))
	if err != nil || string(bak) != v1 {
		t.Fatalf("backup = %q, %v; want the original", bak, err)
	}
	st, _ := os.Stat(w.path("home/settings.toml"))
	if st.Mode().Perm() != 0o640 {
		t.Errorf("rewritten mode %v; want the original 0640", st.Mode().Perm())
	}
	rewritten, _ := os.ReadFile(w.path("home/settings.toml"))
	for _, want := range []string{"schema_version = 2", "approval = 'auto'", "api_key_env = 'MY_KEY'"} {
		if !strings.Contains(string(rewritten), want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, rewritten)
		}
	}
	if strings.Contains(string(rewritten), "approval_policy") {
		t.Errorf("rewritten file still has approval_policy:\n%s", rewritten)
	}
	// A second load reads version 2 and rewrites nothing.
	before, _ := os.Stat(w.path("home/settings.toml"))
	if _, code := w.load(t); code != "" {
		t.Fatalf("second Load = %q", code)
	}
	after, _ := os.Stat(w.path("home/settings.toml"))
	if !before.ModTime().Equal(after.ModTime()) {
		t.Errorf("version-2 file was rewritten")
	}
}

func TestMigrateProjectInMemoryOnly(t *testing.T) {
	w := newWorld(t)
	// The project may tighten approval (a project file may never relax it).
	w.write(t, "home/settings.toml", fixtureGlobal+"[tools]\napproval = \"auto\"\n", 0o644)
	v1 := "schema_version = 1\napproval_policy = \"ask\"\n"
	w.write(t, "cwd/.magi-code/settings.toml", v1, 0o644)
	snap, code := w.load(t)
	if code != "" || snap.Settings.Tools.Approval != "ask" {
		t.Fatalf("Load = %q, approval %q; want ready, ask", code, snap.Settings.Tools.Approval)
	}
	if b, _ := os.ReadFile(w.path("cwd/.magi-code/settings.toml")); string(b) != v1 {
		t.Errorf("project file was rewritten: %q", b)
	}
	if _, err := os.Stat(w.path("cwd/.magi-code/settings.toml.v1.bak")); err == nil {
		t.Errorf("project backup written")
	}
}

func TestMigrateNoVersionNoLegacyKeysNotRewritten(t *testing.T) {
	w := newWorld(t)
	text := "# comment kept\n" + fixtureGlobal
	w.write(t, "home/settings.toml", text, 0o644)
	if _, code := w.load(t); code != "" {
		t.Fatalf("Load = %q", code)
	}
	if b, _ := os.ReadFile(w.path("home/settings.toml")); string(b) != text {
		t.Errorf("file without legacy keys was rewritten: %q", b)
	}
}

func TestMigrateCodes(t *testing.T) {
	tests := []struct {
		name, text string
		want       protocol.Code
	}{
		{"v1 api_key_env without provider", "approval_policy = \"ask\"\napi_key_env = \"K\"\n", protocol.CodeConfigurationInvalid},
		{"v1 api_key_env with fixture", "provider = \"fixture\"\napi_key_env = \"K\"\n", protocol.CodeConfigurationInvalid},
		{"v1 both approval keys", fixtureGlobal + "approval_policy = \"ask\"\n[tools]\napproval = \"auto\"\n", protocol.CodeConfigurationInvalid},
		{"v1 tools not a table", fixtureGlobal + "approval_policy = \"ask\"\ntools = 1\n", protocol.CodeConfigurationInvalid},
		{"v1 bad approval value", fixtureGlobal + "approval_policy = \"never\"\n", protocol.CodeConfigurationInvalid},
		{"v2 keeps v1 key unknown", "schema_version = 2\n" + fixtureGlobal + "approval_policy = \"ask\"\n", protocol.CodeConfigurationInvalid},
		{"version 0", "schema_version = 0\n" + fixtureGlobal, protocol.CodeConfigurationInvalid},
		{"v1 ok", "schema_version = 1\n" + fixtureGlobal + "approval_policy = \"ask\"\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.write(t, "home/settings.toml", tc.text, 0o644)
			if _, code := w.load(t); code != tc.want {
				t.Fatalf("Load = %q; want %q", code, tc.want)
			}
		})
	}
}

// A global settings.toml that is a link (a dotfiles checkout) stays a link
// when migrated: the file it points to is rewritten, and the backup lies
// beside that file.
func TestMigrateLinkedGlobal(t *testing.T) {
	w := newWorld(t)
	v1 := "provider = \"openai\"\nmodel = \"m\"\napproval_policy = \"auto\"\napi_key_env = \"MY_KEY\"\n[providers.openai]\nbase_url = \"http://127.0.0.1:9/v1\"\n"
	w.write(t, "dots/settings.toml", v1, 0o600)
	w.vars["MY_KEY"] = "k"
	if err := os.MkdirAll(w.path("home/."), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(w.path("dots/settings.toml"), w.path("home/settings.toml")); err != nil {
		t.Fatal(err)
	}
	if _, code := w.load(t); code != "" {
		t.Fatalf("Load = %q (logs %q)", code, w.logs)
	}
	if fi, err := os.Lstat(w.path("home/settings.toml")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("home/settings.toml after the migration: %v, %v; want still a link", fi, err)
	}
	if got, _ := os.ReadFile(w.path("dots/settings.toml")); !strings.Contains(string(got), "schema_version = 2") {
		t.Errorf("linked file after the migration = %q; want it rewritten at version 2", got)
	}
	if bak, err := os.ReadFile(w.path("dots/settings.toml.v1.bak")); err != nil || string(bak) != v1 {
		t.Errorf("backup beside the linked file = %q, %v; want the original", bak, err)
	}
	if _, err := os.Lstat(w.path("home/settings.toml.v1.bak")); err == nil {
		t.Error("backup written beside the link; want it beside the file it points to")
	}
}

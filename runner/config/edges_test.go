package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readBounded reads a file of exactly MaxFileBytes whole and refuses one
// byte more.
func TestReadBoundedAtTheBound(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		n  int
		ok bool
	}{{MaxFileBytes, true}, {MaxFileBytes + 1, false}} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(strings.Repeat("x", tc.n)), 0o600); err != nil {
			t.Fatal(err)
		}
		data, _, err := readBounded(p)
		if tc.ok && (err != nil || len(data) != tc.n) {
			t.Errorf("%d bytes: %d, %v; want all of them", tc.n, len(data), err)
		}
		if !tc.ok && !errors.Is(err, errTooLarge) {
			t.Errorf("%d bytes: %d, %v; want errTooLarge", tc.n, len(data), err)
		}
	}
}

// nearest suggests a field within two edits, the closest first and, among
// equally close ones, the first in byte order whatever the map's order;
// three edits away is no suggestion.
func TestNearestField(t *testing.T) {
	fields := map[string]reflect.Type{"provider": nil, "abcd": nil, "abce": nil, "model": nil}
	for _, tc := range []struct{ key, want string }{
		{"modle", "model"},     // a swap
		{"provid", "provider"}, // two deletions
		{"provi", ""},          // three
		{"abcf", "abcd"},       // one edit from abcd and from abce
	} {
		for range 50 { // map order changes from call to call
			if got := nearest(tc.key, fields); got != tc.want {
				t.Fatalf("nearest(%q) = %q; want %q", tc.key, got, tc.want)
			}
		}
	}
}

// distance counts a swap of neighbours as one edit (optimal string
// alignment), and never less than what the strings differ by.
func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"ab", "ab", 0}, {"ab", "ba", 1}, {"abc", "acb", 1}, {"model", "modle", 1},
		{"abc", "bca", 2}, {"ca", "abc", 3}, {"abcd", "badc", 2}, {"ab", "cd", 2}, {"aab", "aba", 1},
	} {
		if got := distance(c.a, c.b); got != c.want {
			t.Errorf("distance(%q, %q) = %d; want %d", c.a, c.b, got, c.want)
		}
	}
}

// A description reads "ready" when nothing would fail, else the startup
// code; a server's listing shows its URL, or its command and arguments.
func TestDescriptionText(t *testing.T) {
	if got := (Description{}).Text(); !strings.Contains(got, "# readiness: ready\n") {
		t.Errorf("Text() = %q; want readiness: ready", got)
	}
	if got := (Description{Readiness: "provider_unavailable"}).Text(); !strings.Contains(got, "# readiness: provider_unavailable\n") {
		t.Errorf("Text() = %q; want the startup code", got)
	}
	got := MCPText([]MCPServer{{Name: "web", URL: "https://mcp.example.com/mcp"}, {Name: "local", Command: "srv", Args: []string{"--stdio", "-v"}}})
	if !strings.Contains(got, "mcp web ") || !strings.HasSuffix(strings.Split(got, "\n")[0], "  https://mcp.example.com/mcp") ||
		!strings.HasSuffix(strings.Split(got, "\n")[1], "  srv --stdio -v") {
		t.Errorf("MCPText = %q; want the URL of web and the command line of local", got)
	}
}

// A key of exactly maxKeyRunes is shown whole; a longer one is cut and
// marked.
func TestKeyProblemBound(t *testing.T) {
	exact := strings.Repeat("k", maxKeyRunes)
	if got := (&keyProblem{key: exact, unknown: true}).error("settings.toml").Error(); !strings.Contains(got, exact) || strings.Contains(got, exact+"…") {
		t.Errorf("a key of %d runes: %q; want it whole", maxKeyRunes, got)
	}
	if got := (&keyProblem{key: exact + "x", unknown: true}).error("settings.toml").Error(); !strings.Contains(got, exact+"…") {
		t.Errorf("a key of %d runes: %q; want it cut and marked", maxKeyRunes+1, got)
	}
}

// A profile's tool name of 128 bytes is accepted, 129 refused.
func TestProfileToolNameBound(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		n  int
		ok bool
	}{{128, true}, {129, false}} {
		p := filepath.Join(dir, "a.md")
		doc := "---\nname: a\ndescription: d\ntools: [" + strings.Repeat("t", tc.n) + "]\n---\nprompt\n"
		if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := parseProfile(p, "a", scope{root: dir})
		if (err == nil) != tc.ok {
			t.Errorf("a tool name of %d bytes: %v; want ok %v", tc.n, err, tc.ok)
		}
	}
}

// readDirBounded returns a directory's entries sorted by name: exactly
// MaxDirEntries of them, one more is refused.
func TestReadDirBounded(t *testing.T) {
	dir := t.TempDir()
	for i := MaxDirEntries - 1; i >= 0; i-- { // created in reverse order
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("e%03d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := readDirBounded(dir)
	if err != nil || len(entries) != MaxDirEntries {
		t.Fatalf("%d entries: %d, %v; want all", MaxDirEntries, len(entries), err)
	}
	for i, e := range entries {
		if want := fmt.Sprintf("e%03d", i); e.Name() != want {
			t.Fatalf("entry %d = %s; want %s (sorted by name)", i, e.Name(), want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "one-more"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readDirBounded(dir); err == nil {
		t.Errorf("%d entries accepted", MaxDirEntries+1)
	}
}

// Describe lists the settings sorted by key.
func TestDescribeSortedByKey(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte("provider = \"fixture\"\nmodel = \"m\"\n[tools]\napproval = \"ask\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Describe(Env{MCHome: home, Cwd: t.TempDir()})
	if err != nil || len(d.Values) < 3 {
		t.Fatalf("Describe = %d values, %v", len(d.Values), err)
	}
	for i := 1; i < len(d.Values); i++ {
		if d.Values[i-1].Key > d.Values[i].Key {
			t.Fatalf("values %q before %q; want them sorted by key", d.Values[i-1].Key, d.Values[i].Key)
		}
	}
}

// A home reached through a link is described by its real path; reading a
// home without an approvals file logs nothing about approvals.
func TestDescribeRealHomeAndQuietApprovals(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real-home")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "settings.toml"), []byte("provider = \"fixture\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "home-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	var logs []string
	d, err := Describe(Env{MCHome: link, Cwd: t.TempDir(), Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }})
	want, _ := filepath.EvalSymlinks(real)
	if err != nil || d.Home != want {
		t.Errorf("Describe through a link: home %q, %v; want %q", d.Home, err, want)
	}
	if all := strings.Join(logs, "\n"); strings.Contains(all, "approvals") {
		t.Errorf("log = %q; want nothing about approvals when there are none", all)
	}
}

// A settings file that is a link (a dotfiles checkout) stays a link when
// the model is chosen: the file it points to is rewritten.
func TestSetSelectionKeepsSettingsLink(t *testing.T) {
	home, dotfiles := t.TempDir(), t.TempDir()
	target := filepath.Join(dotfiles, "settings.toml")
	if err := os.WriteFile(target, []byte("provider = \"fixture\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "settings.toml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := SetSelection(Env{MCHome: home, Cwd: t.TempDir()}, "fixture", "fixture-model"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.toml after SetSelection: %v, %v; want it still a link", fi, err)
	}
	if got, _ := os.ReadFile(target); !strings.Contains(string(got), "fixture-model") {
		t.Errorf("the linked file = %q; want the model in it", got)
	}
}

// Each settings bound accepts its limit and refuses one past it; a hook
// without timeout_ms gets the default and one with it keeps it; a float is
// refused where an integer is required.
func TestSettingsBounds(t *testing.T) {
	for _, tc := range []struct {
		toml string
		ok   bool
	}{
		{"session_retention_days = 36500", true},
		{"session_retention_days = 36501", false},
		{"session_retention_days = 1.5", false},
		{"session_retention_days = 2.0", false}, // a float, even a whole one
		{"[tools.code_mode]\ntimeout_ms = 1", true},
		{"[tools.code_mode]\ntimeout_ms = 0", false},
		{"[tools.code_mode]\ntimeout_ms = 600000", true},
		{"[tools.code_mode]\ntimeout_ms = 600001", false},
		{"[[hooks]]\nevent = \"stop\"\ncommand = \"true\"\ntimeout_ms = 600000", true},
		{"[[hooks]]\nevent = \"stop\"\ncommand = \"true\"\ntimeout_ms = 600001", false},
		{"[[hooks]]\nevent = \"stop\"\ncommand = \"true\"\ntimeout_ms = -1", false},
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte("provider = \"fixture\"\n"+tc.toml+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := loadSettings(&Env{MCHome: home, Cwd: t.TempDir()}, false)
		if (err == nil) != tc.ok {
			t.Errorf("%q: %v; want ok %v", tc.toml, err, tc.ok)
		}
	}
	for toml, want := range map[string]int{
		"[[hooks]]\nevent = \"stop\"\ncommand = \"true\"":                    defaultHookTimeout,
		"[[hooks]]\nevent = \"stop\"\ncommand = \"true\"\ntimeout_ms = 5000": 5000,
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte("provider = \"fixture\"\n"+toml+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		st, err := loadSettings(&Env{MCHome: home, Cwd: t.TempDir()}, false)
		if err != nil || len(st.settings.Hooks) != 1 || st.settings.Hooks[0].TimeoutMs != want {
			t.Errorf("%q: %v; want one hook with timeout %d ms", toml, err, want)
		}
	}
}

// setTopLevel keeps every line: a last line without a newline, a file that
// starts with a table, and blank lines after the last top-level value.
func TestSetTopLevelLayouts(t *testing.T) {
	set := map[string]string{"provider": "fixture"}
	for in, want := range map[string]string{
		"schema_version = 2":                  "schema_version = 2\nprovider = \"fixture\"\n",
		"schema_version = 2\n":                "schema_version = 2\nprovider = \"fixture\"\n",
		"[tools]\napproval = \"ask\"\n":       "provider = \"fixture\"\n[tools]\napproval = \"ask\"\n",
		"a = 1\n\n# note\n[tools]\n":          "a = 1\nprovider = \"fixture\"\n\n# note\n[tools]\n",
		"provider = \"openai\" # mine\nb = 2": "provider = \"fixture\" # mine\nb = 2\n",
		"provider = \"a#b\"\n":                "provider = \"fixture\"\n",
		"provider = \"q\\\"#\" # real\r\n":    "provider = \"fixture\" # real\n",
		"provider = 'x#y' #lit\n":             "provider = \"fixture\" #lit\n",
		"provider = true # odd\n":             "provider = \"fixture\" # odd\n",
		"provider = \"open\n":                 "provider = \"fixture\"\n",
		"provider = \"\"\"\nx\"\"\" # m\n":    "provider = \"fixture\"\nx\"\"\" # m\n",
	} {
		if got := string(setTopLevel([]byte(in), set, []string{"provider"})); got != want {
			t.Errorf("setTopLevel(%q) = %q; want %q", in, got, want)
		}
	}
}

// A credential prints masked, and says none when there is none.
func TestCredentialString(t *testing.T) {
	if got := (Credential{}).String(); got != "Credential{none}" {
		t.Errorf("empty Credential = %q", got)
	}
	c := Credential{Kind: CredentialOAuth, AccessToken: "at-SECRET-123", RefreshToken: "rt-SECRET-456"}
	if got := c.String(); got != "Credential{oauth, masked}" || strings.Contains(fmt.Sprintf("%v %+v %#v", c, c, c), "SECRET") {
		t.Errorf("Credential = %q; want it masked in every verb", got)
	}
}

// A provider's base URL is filled with the default only when none is set.
func TestProviderDefaultsKeepBaseURL(t *testing.T) {
	var s Settings
	s.Providers.OpenAI.BaseURL = "https://proxy.example.com/v1"
	s.fillProviderDefaults()
	if s.Providers.OpenAI.BaseURL != "https://proxy.example.com/v1" || s.Providers.Anthropic.BaseURL == "" {
		t.Errorf("base URLs = %q, %q; want the one set kept and the other defaulted", s.Providers.OpenAI.BaseURL, s.Providers.Anthropic.BaseURL)
	}
}

// A version 1 api_key_env moves only with provider openai or anthropic.
func TestMigrateAPIKeyEnvProviders(t *testing.T) {
	for provider, ok := range map[string]bool{"openai": true, "anthropic": true, "fixture": false, "": false} {
		m := map[string]any{"api_key_env": "MY_KEY"}
		if provider != "" {
			m["provider"] = provider
		}
		_, err := migrate(m)
		if (err == nil) != ok {
			t.Errorf("api_key_env with provider %q: %v; want ok %v", provider, err, ok)
		}
	}
}

// Exactly MaxInstructionFiles candidates (MC_HOME's AGENTS.md, the cwd's
// and the listed files) are loaded; one more is refused.
func TestInstructionFilesAtTheBound(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "AGENTS.md"), []byte("cwd rules\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for i := range MaxInstructionFiles - 1 {
		p := filepath.Join(cwd, fmt.Sprintf("doc%02d.md", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("doc %d\n", i)), 0o600); err != nil {
			t.Fatal(err)
		}
		listed = append(listed, p)
	}
	l := &loader{env: &Env{}, home: home, cwd: cwd}
	docs, err := l.instructions(nil, listed[:MaxInstructionFiles-2])
	if err != nil || len(docs) != MaxInstructionFiles-1 {
		t.Errorf("instructions with %d candidates = %d documents, %v; want %d, no error",
			MaxInstructionFiles, len(docs), err, MaxInstructionFiles-1)
	}
	if _, err := l.instructions(nil, listed); err == nil || err.Error() != "too many instruction files" {
		t.Errorf("instructions with %d candidates: err = %v; want too many instruction files", MaxInstructionFiles+1, err)
	}
}

// A rename that fails (the path is a non-empty directory) is WriteAtomic's
// error, and no temporary file is left behind.
func TestWriteAtomicRenameFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "auth.json")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, []byte("{}"), 0o600); err == nil {
		t.Error("WriteAtomic over a non-empty directory = nil; want the rename's error")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "auth.json" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

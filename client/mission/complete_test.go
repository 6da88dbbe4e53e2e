package mission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workspace makes a workspace with files, a hidden directory, a link to a
// directory inside and one to a directory outside it.
func workspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(ws, "src", "sub"), filepath.Join(ws, ".git"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"src/main.go", "src/model.go", "README.md", "Makefile", ".env", "has space.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "link-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(ws, "link-in")); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestCompleteMention(t *testing.T) {
	list := workspaceLister(workspace(t))
	for _, c := range []struct {
		typed, want string
		matches     string
		err         error
	}{
		{"REA", "README.md", "", nil},
		{"sr", "src/", "", nil},
		{"src/ma", "src/main.go", "", nil},
		{"src/m", "src/m", "main.go model.go", nil},
		{"src/", "src/", "main.go model.go sub/", nil},
		{"M", "Makefile", "", nil},
		{"", "", "Makefile README.md link-in/ src/", nil},
		{"link-o", "link-o", "", nil},
		{".e", ".env", "", nil},
		{"link-in/mai", "link-in/main.go", "", nil},
		{"zzz", "zzz", "", nil},
		{"../outside/se", "../outside/se", "", errOutside},
		{"src/../../outside/", "src/../../outside/", "", errOutside},
		{"/etc/pass", "/etc/pass", "", errOutside},
		{"~/.ss", "~/.ss", "", errOutside},
		{"link-out/se", "link-out/se", "", errors.New("any")},
		{"nodir/x", "nodir/x", "", errors.New("any")},
	} {
		got, matches, err := completeMention(c.typed, list)
		if (err != nil) != (c.err != nil) || (c.err == errOutside && !errors.Is(err, errOutside)) {
			t.Errorf("%q: err %v; want %v", c.typed, err, c.err)
		}
		if got != c.want || strings.Join(matches, " ") != c.matches {
			t.Errorf("%q: %q %q; want %q %q", c.typed, got, matches, c.want, c.matches)
		}
	}
}

// A directory is read to maxDirEntries entries at most.
func TestCompleteMentionBounded(t *testing.T) {
	ws := t.TempDir()
	for i := range maxDirEntries + 200 {
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%05d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := workspaceLister(ws)("")
	if err != nil || len(entries) != maxDirEntries {
		t.Fatalf("%d entries read, %v", len(entries), err)
	}
}

// Tab on an @mention completes it in place; the matches are listed under
// the input until the next key; Tab elsewhere is not a completion.
func TestMentionTab(t *testing.T) {
	m, _, _ := sized(t, 80, 24, Options{Cwd: workspace(t)})
	m.input.Reset()
	for _, r := range "look at @src/ma" {
		key(m, string(r))
	}
	key(m, "tab")
	if got := m.input.Value(); got != "look at @src/main.go " {
		t.Fatalf("completed %q", got)
	}
	for _, r := range "and @src/" {
		key(m, string(r))
	}
	key(m, "tab")
	if v := view(m); !strings.Contains(v, "  model.go") || !strings.Contains(v, "  sub/") {
		t.Fatalf("the matches are not listed:\n%s", v)
	}
	key(m, "x")
	if strings.Contains(view(m), "  model.go") {
		t.Fatal("the matches stayed after a key")
	}
	m.input.Reset()
	for _, r := range "@../outside/" {
		key(m, string(r))
	}
	key(m, "tab")
	if m.input.Value() != "@../outside/" || !strings.Contains(view(m), "only paths inside the workspace") {
		t.Fatalf("outside: %q\n%s", m.input.Value(), view(m))
	}
}

package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/tools"
)

// TestConfinedCannotReadMCHome: under approval = "auto", through serve
// --stdio, a confined shell command cannot read the files of MC_HOME (the
// stored provider credentials, every project's sessions and logs), by its
// real path, through the link MC_HOME is configured as, or from a script;
// nothing of them reaches a model request. The rest of HOME stays readable
// and listable, and so does MC_HOME's listing of names. Nothing asks.
func TestConfinedCannotReadMCHome(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	mc := filepath.Join(s.home, ".magi-code")
	canary := strings.TrimSpace(readFile(t, filepath.Join(mc, "notes.md")))
	if err := os.WriteFile(filepath.Join(s.home, "plain.txt"), []byte("PLAIN-READABLE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds := []string{
		"cat " + filepath.Join(mc, "notes.md"),
		"cat " + filepath.Join(s.root, "mclink", "notes.md"),
		"cat " + filepath.Join(mc, "sessions") + "/*.jsonl",
		`python3 -c "import sys; print(open(sys.argv[1]).read())" ` + filepath.Join(s.root, "mclink", "notes.md"),
		"cat ~/plain.txt && ls -a ~ && ls " + mc,
	}
	reqs := s.confinedShells(t, "read MC_HOME", cmds)
	for i, req := range reqs {
		if bytes.Contains(req.Body, []byte(canary)) {
			t.Errorf("model request %d carries MC_HOME's canary", i)
		}
		if i > 0 && i <= 3 && !strings.Contains(lastToolResult(t, req.Body), "Permission denied") {
			t.Errorf("command %q: %q; want Permission denied", cmds[i-1], lastToolResult(t, req.Body))
		}
	}
	last := lastToolResult(t, reqs[len(cmds)].Body)
	for _, want := range []string{"PLAIN-READABLE", "plain.txt", ".magi-code", "notes.md"} {
		if !strings.Contains(last, want) {
			t.Errorf("the rest of HOME: %q lacks %q", last, want)
		}
	}
}

// TestConfinedCannotReadCredentials: under approval = "auto", through
// serve --stdio, a confined shell command without the network cannot read
// the person's credential files (the file tools' list: ~/.aws, ~/.ssh,
// ~/.git-credentials, ~/.cargo/credentials.toml...), by path, through a
// workspace link or from a script; no fake secret reaches a model request.
// ~/.gitconfig stays readable, and ~/.ssh's names stay listable. Nothing
// asks.
func TestConfinedCannotReadCredentials(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	fakes := map[string]string{
		".aws/credentials": "aws_secret_access_key = AWS-FAKE-SECRET-" + s.key,
		".ssh/id_ed25519":  "SSH-FAKE-SECRET-" + s.key,
		".git-credentials": "https://u:GIT-FAKE-SECRET-" + s.key + "@example.com",
		".gitconfig":       "[user]\n\tname = GITCONFIG-READABLE\n",
	}
	for rel, content := range fakes {
		p := filepath.Join(s.home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmds := []string{
		"cat $HOME/.aws/credentials",
		"cat ~/.ssh/id_ed25519",
		`python3 -c "import os; print(open(os.path.expanduser('~/.git-credentials')).read())"`,
		"cat cargo",
		"cat ~/.gitconfig && ls ~/.ssh",
	}
	reqs := s.confinedShells(t, "read credentials", cmds)
	for i, req := range reqs {
		for _, secret := range append([]string{"FAKE-SECRET", "CARGO-CANARY"}, s.secrets...) {
			if bytes.Contains(req.Body, []byte(secret)) {
				t.Errorf("model request %d carries %q", i, secret)
			}
		}
		if i > 0 && i < len(cmds) && !strings.Contains(lastToolResult(t, req.Body), "Permission denied") {
			t.Errorf("command %q: %q; want Permission denied", cmds[i-1], lastToolResult(t, req.Body))
		}
	}
	last := lastToolResult(t, reqs[len(cmds)].Body)
	for _, want := range []string{"GITCONFIG-READABLE", "id_ed25519"} {
		if !strings.Contains(last, want) {
			t.Errorf("%q lacks %q", last, want)
		}
	}
}

// TestConfinedCannotReadAboveWorkspace: under approval = "auto", through
// serve --stdio, a workspace that holds the home (the agent started in a
// directory above it) does not make MC_HOME or the credential stores
// readable to a confined command: the workspace's write grant once
// covered them. No canary reaches a model request; the rest of the home
// still reads.
func TestConfinedCannotReadAboveWorkspace(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	s.ws = s.root
	cmds := []string{
		"cat home/.magi-code/notes.md", "cat mclink/notes.md", "cat ~/.cargo/credentials.toml",
		"cat home/.azure/msal_token_cache.json", "cat ~/.magi-code/settings.toml",
		"cat outside/notes.txt",
	}
	reqs := s.confinedShells(t, "read above", cmds)
	for i, req := range reqs {
		for _, secret := range append(s.secrets[1:], "OPENAI", "openai") {
			if bytes.Contains(req.Body, []byte(secret)) && i > 0 && i < len(cmds) {
				t.Errorf("model request %d (after %q) carries %q", i, cmds[i-1], secret)
			}
		}
	}
	if last := lastToolResult(t, reqs[len(cmds)].Body); !strings.Contains(last, s.outsideCanary) {
		t.Errorf("the rest of the workspace: %q; want the plain file read", last)
	}
}

// TestReadLinkedCredentialStores: under approval = "auto", through serve
// --stdio, the person's ~/.ssh is a link into a dotfiles checkout, which
// is the workspace: read_file, grep and list_dir of the store under its
// own names there (ssh/server-key) are refused as credentials, and the
// workspace's grep skips it; no fake key reaches a model request, while
// the checkout's other files are read.
func TestReadLinkedCredentialStores(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	key := "SSH-LINKED-FAKE-" + s.key
	dot := filepath.Join(s.root, "dotfiles")
	for p, c := range map[string]string{filepath.Join(dot, "ssh", "server-key"): key + "\n", filepath.Join(dot, "notes.txt"): "DOT-PLAIN\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../dotfiles/ssh", filepath.Join(s.home, ".ssh")); err != nil {
		t.Fatal(err)
	}
	s.ws = dot
	calls := []readCall{
		{"read_file", map[string]any{"path": "ssh/server-key"}, tools.RefusedCredentialRead},
		{"grep", map[string]any{"pattern": "FAKE", "path": "ssh"}, tools.RefusedCredentialRead},
		{"list_dir", map[string]any{"path": "./ssh"}, tools.RefusedCredentialRead},
		{"read_file", map[string]any{"path": "missing/../ssh/server-key"}, tools.RefusedCredentialRead},
		{"grep", map[string]any{"pattern": "FAKE|PLAIN", "path": "."}, "notes.txt:1:DOT-PLAIN"},
	}
	reqs, _ := s.autoCalls(t, "read the dotfiles", calls)
	for i, req := range reqs {
		if bytes.Contains(req.Body, []byte(key)) {
			t.Errorf("model request %d carries the fake key", i)
		}
	}
}

// TestMCHomeLinkedSettings: under approval = "auto", through serve
// --stdio, MC_HOME's settings.toml is a link into a dotfiles checkout,
// which is the workspace. read_file and grep of it there, and a confined
// command's cat, are refused: the settings (which may hold MCP servers'
// tokens) reach no model request; the checkout's other files are read.
func TestMCHomeLinkedSettings(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	dot := filepath.Join(s.root, "dotfiles")
	if err := os.MkdirAll(dot, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dot, "notes.txt"), []byte("DOT-PLAIN\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dot, "magi.toml"), filepath.Join(s.home, ".magi-code", "settings.toml")); err != nil {
		t.Fatal(err)
	}
	s.ws = dot
	calls := []readCall{
		{"read_file", map[string]any{"path": "magi.toml"}, tools.RefusedCredentialRead},
		{"grep", map[string]any{"pattern": "provider", "path": "magi.toml"}, tools.RefusedCredentialRead},
		{"grep", map[string]any{"pattern": "provider|PLAIN", "path": "."}, "notes.txt:1:DOT-PLAIN"},
	}
	reqs, sb := s.autoCalls(t, "read the dotfiles", calls, oaCall("call_sh", "shell", map[string]any{"command": "cat magi.toml"}))
	if b, _ := os.ReadFile(filepath.Join(dot, "magi.toml")); !strings.Contains(string(b), "provider") {
		t.Fatalf("the settings were not written through the link: %q", b)
	}
	if got := lastToolResult(t, reqs[len(calls)+1].Body); sb == "workspace-write" && !strings.Contains(got, "Permission denied") {
		t.Errorf("confined cat magi.toml: %q", got)
	}
	for i, req := range reqs {
		if bytes.Contains(req.Body, []byte(`provider = \"openai\"`)) {
			t.Errorf("model request %d carries MC_HOME's settings", i)
		}
	}
}

package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// TestGitHooksReadOnlyUnderAuto: under approval = "auto", through serve
// --stdio with the fixture provider, git's hooks where core.hooksPath puts
// them in the workspace (husky's layout: .husky/_/pre-commit runs
// .husky/pre-commit) are version control metadata: a confined shell
// command cannot append to either or add a hook, write_file and edit_file
// are refused there, and nothing asks; the rest of the workspace is
// written. A nested repository's own hooks directory is read-only too, and
// one a repository's configuration names but that is missing, made by a
// confined command, is moved aside. So is a configuration file the
// repository includes from the tree (a core.fsmonitor there runs at the
// person's next git command). Afterwards the person's own, unconfined git commit runs the
// hooks as they were: the canary (outside /tmp and TMPDIR) a planted line
// would create is not there, and the commit's own hook ran.
func TestGitHooksReadOnlyUnderAuto(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	s := newReadScene(t)
	canary, ran := filepath.Join(s.root, "PWNED"), filepath.Join(s.root, "hook-ran")
	gitEnv := []string{"HOME=" + s.home, "PATH=/usr/bin:/bin", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	git := func(args ...string) error {
		cmd := exec.Command("git", append([]string{"-C", s.ws}, args...)...)
		cmd.Env = gitEnv
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("git %v: %s", args, out)
		}
		return err
	}
	if err := git("init", "-q"); err != nil {
		t.Fatal(err)
	}
	if err := git("config", "core.hooksPath", ".husky/_"); err != nil {
		t.Fatal(err)
	}
	// The repository includes a configuration file it keeps in the tree.
	if err := git("config", "include.path", "../tools/git.inc"); err != nil {
		t.Fatal(err)
	}
	inc := "[alias]\n\tst = status\n"
	// A nested repository with its own hooks directory, and one whose
	// configured hooks directory is missing (git clean -fdx removed it).
	for _, d := range []string{"vendor/lib", "gone"} {
		cmd := exec.Command("git", "init", "-q", filepath.Join(s.ws, d))
		cmd.Env = gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init %s: %v\n%s", d, err, out)
		}
		cmd = exec.Command("git", "-C", filepath.Join(s.ws, d), "config", "core.hooksPath", ".githooks")
		cmd.Env = gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git config %s: %v\n%s", d, err, out)
		}
	}
	hook := "touch " + clienttest.Quote(ran) + "\n"
	for name, content := range map[string]string{".husky/pre-commit": hook, ".husky/_/pre-commit": "#!/bin/sh\nsh \"$(dirname \"$0\")/../pre-commit\"\n", "src/keep.txt": "keep\n", "tools/git.inc": inc,
		"vendor/lib/.githooks/pre-commit": hook} {
		p := filepath.Join(s.ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	plant := "touch " + clienttest.Quote(canary)
	calls := []map[string]any{
		{"name": "shell", "arguments": map[string]any{"command": "echo " + clienttest.Quote(plant) + " >> .husky/pre-commit"}},
		{"name": "shell", "arguments": map[string]any{"command": "printf '#!/bin/sh\\n" + plant + "\\n' > .husky/_/pre-commit"}},
		{"name": "shell", "arguments": map[string]any{"command": "python3 -c \"open('.husky/_/commit-msg','w').write('#!/bin/sh\\n')\" || true"}},
		{"name": "write_file", "arguments": map[string]any{"path": ".husky/pre-commit", "content": plant + "\n"}},
		{"name": "edit_file", "arguments": map[string]any{"path": ".husky/pre-commit", "old": "touch", "new": plant + "; touch"}},
		{"name": "shell", "arguments": map[string]any{"command": "echo " + clienttest.Quote(plant) + " >> vendor/lib/.githooks/pre-commit"}},
		{"name": "shell", "arguments": map[string]any{"command": "mkdir gone/.githooks && echo " + clienttest.Quote(plant) + " > gone/.githooks/pre-commit"}},
		{"name": "shell", "arguments": map[string]any{"command": "printf '[core]\\n\\tfsmonitor = " + plant + "\\n' >> tools/git.inc"}},
		{"name": "write_file", "arguments": map[string]any{"path": "tools/git.inc", "content": "[core]\n\tfsmonitor = " + plant + "\n"}},
		{"name": "shell", "arguments": map[string]any{"command": "echo ok > src/new.txt"}},
	}
	s.confinedTurn(t, calls)
	if got := readFile(t, filepath.Join(s.ws, ".husky", "pre-commit")); got != hook {
		t.Errorf(".husky/pre-commit became %q", got)
	}
	if got := readFile(t, filepath.Join(s.ws, "vendor", "lib", ".githooks", "pre-commit")); got != hook {
		t.Errorf("the nested repository's vendor/lib/.githooks/pre-commit became %q", got)
	}
	if _, err := os.Lstat(filepath.Join(s.ws, "gone", ".githooks")); err == nil {
		t.Error("gone/.githooks, made by a confined command where core.hooksPath points, is still in place")
	}
	if got := readFile(t, filepath.Join(s.ws, "tools", "git.inc")); got != inc {
		t.Errorf("tools/git.inc, which the repository's configuration includes, became %q", got)
	}
	if _, err := os.Lstat(filepath.Join(s.ws, ".husky", "_", "commit-msg")); err == nil {
		t.Error(".husky/_/commit-msg was added")
	}
	if got := readFile(t, filepath.Join(s.ws, "src", "new.txt")); got != "ok\n" {
		t.Errorf("src/new.txt = %q; want it written", got)
	}
	// The person's next commit, unconfined, runs the hooks.
	if err := git("commit", "-q", "--allow-empty", "-m", "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Errorf("the pre-commit hook did not run on commit: %v", err)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Error("the commit ran a line a confined command planted in the hooks")
	}
}

// TestNewNestedMetadataSetAside: under approval = "auto", through serve
// --stdio with the fixture provider, a confined command that makes a git
// repository by hand in a subdirectory, with a core.fsmonitor command in
// its config (which the person's next git status there, or a shell
// prompt's, runs unconfined), finds it moved aside when it ends, and the
// result the model reads says so, also when the command first made the
// names it would be moved to (.git.refused-by-sandbox ... -100); the
// person's git status in those directories afterwards runs nothing of it (the canary, outside /tmp and
// TMPDIR, is not created). Nothing asks.
func TestNewNestedMetadataSetAside(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	s := newReadScene(t)
	canary := filepath.Join(s.root, "PWNED")
	if err := os.MkdirAll(filepath.Join(s.ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	plant := func(dir string) string {
		return "mkdir -p " + dir + "/.git/objects " + dir + "/.git/refs && echo 'ref: refs/heads/main' > " + dir + "/.git/HEAD && " +
			"printf '[core]\\n\\tfsmonitor = touch " + canary + "\\n' > " + dir + "/.git/config"
	}
	// The second takes the names it would be moved to first.
	taken := "mkdir sub2 && for i in '' $(seq -f -%g 2 100); do mkdir sub2/.git.refused-by-sandbox$i; done && " + plant("sub2")
	s.confinedTurn(t, shellCalls(plant("sub"), taken))
	if _, err := os.Lstat(filepath.Join(s.ws, "sub", ".git")); err == nil {
		t.Error("sub/.git, made by a confined command, is still in place")
	}
	if _, err := os.Lstat(filepath.Join(s.ws, "sub", ".git.refused-by-sandbox")); err != nil {
		t.Errorf("sub/.git was not moved aside: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(s.ws, "sub2", ".git")); err == nil {
		t.Error("sub2/.git, made by a confined command that took the names first, is still in place")
	}
	for _, dir := range []string{"sub", "sub2"} {
		cmd := exec.Command("git", "-C", filepath.Join(s.ws, dir), "status")
		cmd.Env = []string{"HOME=" + s.home, "PATH=/usr/bin:/bin"}
		_ = cmd.Run()
	}
	if _, err := os.Stat(canary); err == nil {
		t.Error("the person's git status ran the core.fsmonitor a confined command planted")
	}
}

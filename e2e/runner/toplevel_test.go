package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/runner/sandbox"
)

// TestTopLevelUnderAuto: under approval = "auto", through serve --stdio,
// at the top of a git workspace a confined shell command makes a
// directory, a file in it and a new file (what npm install, go build -o
// bin/x or a venv need) where the sandbox has read-only mounts, while
// .git/config keeps its bytes and .git stays in place, and a .claude it
// creates is moved aside when it ends; where it has none
// (per-entry grants), the top level takes no new entry, as before.
// Nothing asks. The scratch root is outside /tmp and TMPDIR.
func TestTopLevelUnderAuto(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	config := "[core]\n\trepositoryformatversion = 0\n"
	if git, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command(git, "init", "-q", s.ws).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
	} else if err := os.MkdirAll(filepath.Join(s.ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.ws, ".git", "config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	s.confinedShells(t, "build at the top", []string{
		`mkdir bin && echo ok > bin/x && cat > top.txt`,
		`printf '[core]\n\tfsmonitor = touch ~/pwned\n' >> .git/config`,
		`python3 -c "import os; os.rename('.git', '.git2')"`,
		`mkdir .claude && echo '{"hooks":{}}' > .claude/settings.json`,
	})
	mounts := sandbox.ProbeWithMounts().Mounts != ""
	t.Logf("uid %d: read-only mounts %v", os.Getuid(), mounts)
	_, errBin := os.Stat(filepath.Join(s.ws, "bin", "x"))
	_, errTop := os.Stat(filepath.Join(s.ws, "top.txt"))
	if (errBin == nil) != mounts || (errTop == nil) != mounts {
		t.Errorf("with read-only mounts %v: bin/x %v, top.txt %v", mounts, errBin, errTop)
	}
	if got := readFile(t, filepath.Join(s.ws, ".git", "config")); got != config {
		t.Errorf(".git/config became %q", got)
	}
	if _, err := os.Lstat(filepath.Join(s.ws, ".git2")); err == nil {
		t.Error(".git was moved")
	}
	// A .claude created where there was none: refused at once by per-entry
	// grants, moved aside after the command under read-only mounts.
	if _, err := os.Lstat(filepath.Join(s.ws, ".claude")); err == nil {
		t.Error("a confined command created .claude at the top, and it stayed")
	}
	if _, err := os.Stat(filepath.Join(s.ws, ".claude.refused-by-sandbox", "settings.json")); (err == nil) != mounts {
		t.Errorf("with read-only mounts %v: .claude.refused-by-sandbox/settings.json: %v", mounts, err)
	}
}

package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/proctest"
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

// TestNoProcessOutlivesTheCommandUnderAuto: under approval = "auto",
// through serve --stdio, a confined command that starts a process in a
// session of its own (setsid, out of the group the agent kills) leaves
// nothing running once its result is back, where the sandbox gives each
// command a PID namespace (config show: "no process outlives its
// command"); the command sees its own processes only, not the agent.
// Elsewhere the process survives, as docs/configuration.md says.
func TestNoProcessOutlivesTheCommandUnderAuto(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	tok := proctest.Token()
	t.Cleanup(func() { proctest.KillWithArg(tok) })
	reqs := s.confinedShells(t, "leave a daemon", []string{
		"setsid sh -c 'sleep " + tok + "' </dev/null >/dev/null 2>&1 & echo started",
		"echo processes: /proc/[0-9]*",
	})
	mode := sandbox.ProbeWithMounts().Mounts
	ownPIDs := mode == sandbox.MountsNSPID || mode == sandbox.MountsUserNSPID
	t.Logf("uid %d: mounts %q", os.Getuid(), mode)
	if !ownPIDs && holdsSysAdmin(t) {
		// Root with CAP_SYS_ADMIN can make and mount a PID namespace.
		t.Fatalf("no PID namespace for confined commands with CAP_SYS_ADMIN (mounts %q)", mode)
	}
	if !ownPIDs {
		if len(proctest.WithArg(tok)) == 0 {
			t.Error("without a PID namespace the setsid child is expected to survive (documented); none did")
		}
		return
	}
	clienttest.WaitFor(t, "the setsid child to be gone", func() bool { return len(proctest.WithArg(tok)) == 0 })
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "processes: /proc/1\\n") {
		t.Errorf("the command saw other processes than its own: %.600s", last)
	}
}

// holdsSysAdmin reports whether this process holds CAP_SYS_ADMIN (bit 21
// of CapEff in /proc/self/status).
func holdsSysAdmin(t *testing.T) bool {
	t.Helper()
	status := readFile(t, "/proc/self/status")
	for line := range strings.Lines(status) {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && caps&(1<<21) != 0
		}
	}
	return false
}

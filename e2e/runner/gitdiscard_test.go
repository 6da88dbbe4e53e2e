package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/protocol"
	guard "github.com/magi-code/magi-code/runner/shell"
)

// TestGitDiscardsAskUnderAuto: through serve --stdio (the fixture
// provider's script) under approval = "auto", git commands that overwrite
// uncommitted work without a discard command's usual name ask, and,
// denied, the work remains: with the OS sandbox, a command that
// ls-remote's --upload-pack runs (git checkout-index -fa, which writes the
// worktree and not .git, so the read-only .git did not stop it); with
// none (mode = "off", unsandboxed_auto = true: the guard rail alone), git
// diff | git apply -R, reset --merge (it drops a staged change), read-tree
// -u --reset, checkout-index -f, the same --upload-pack, and a plain git
// checkout that --upload-pack or grep -O runs with the words git appends
// (the repository ".", the matching files). A reading git
// command runs unasked in both. The scratch root is outside /tmp and
// TMPDIR.
func TestGitDiscardsAskUnderAuto(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	upload := "git ls-remote --upload-pack='git checkout-index -fa;' ."
	for _, tc := range []struct {
		name, settings string
		asks           []string
	}{
		{"sandbox", "", []string{upload, "git grep -O'git checkout-index -fa;' -l UNCOMMITTED"}},
		{"guard rail alone", "unsandboxed_auto = true\n\n[tools.sandbox]\nmode = \"off\"\n", []string{
			"git diff | git apply -R", "git reset --merge", "git read-tree -u --reset HEAD",
			"git checkout-index -fa", "git checkout-index --force --all", upload,
			"git ls-remote --upload-pack='git checkout' .", "git grep -O'git checkout' -l UNCOMMITTED",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := ostest.OutsideTemp(t)
			home, wsDir := filepath.Join(root, "home"), filepath.Join(root, "proj")
			if err := os.MkdirAll(home, 0o755); err != nil {
				t.Fatal(err)
			}
			git := func(args ...string) {
				t.Helper()
				cmd := exec.Command("git", append([]string{"-C", wsDir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
				cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			ws := &clienttest.Workspace{Home: filepath.Join(root, "mchome"), Cwd: wsDir}
			ws.WriteFile(t, filepath.Join(wsDir, "f.txt"), "committed\n")
			ws.WriteFile(t, filepath.Join(wsDir, "st.txt"), "committed\n")
			git("init", "-q")
			git("add", ".")
			git("commit", "-qm", "c")
			ws.WriteFile(t, filepath.Join(wsDir, "f.txt"), "UNCOMMITTED\n")
			ws.WriteFile(t, filepath.Join(wsDir, "st.txt"), "STAGED\n")
			git("add", "st.txt")
			script := callScript(t, root, shellCalls(append(append([]string(nil), tc.asks...), "git log --oneline > log.txt")...))
			ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), fixtureAuto(script, tc.settings))
			ch := startChild(t, ws, client.Options{Env: []string{"MC_HOME=" + ws.Home, "HOME=" + home, "PATH=/usr/bin:/bin"}})
			if tc.settings == "" {
				skipUnconfined(t, ch)
			}
			sid := ch.Create().SessionID
			runID, adm := ch.StartTurn(sid, "undo")
			evs := denyAsks(t, ch, sid, runID, len(tc.asks), guard.ReasonGitDiscard)
			r := ch.Finish(sid, runID, adm, evs)
			r.WantOutcome(t, "completed", "")
			if n := r.Count(protocol.EventApprovalRequested); n != len(tc.asks) {
				t.Errorf("%d approval requests; want %d", n, len(tc.asks))
			}
			ch.Shutdown()
			for name, want := range map[string]string{"f.txt": "UNCOMMITTED\n", "st.txt": "STAGED\n"} {
				if got := readFile(t, filepath.Join(wsDir, name)); got != want {
					t.Errorf("%s = %q; want the uncommitted work %q kept", name, got, want)
				}
			}
			if got := readFile(t, filepath.Join(wsDir, "log.txt")); got == "" {
				t.Errorf("log.txt is empty: git log did not run unasked (activities %+v)", r.Activities)
			}
		})
	}
}

package runner

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/protocol"
	guard "github.com/magi-code/magi-code/runner/shell"
)

// TestGitForcePushSpellingsAsk: under approval = "auto", through serve
// --stdio with a recording OpenAI-compatible endpoint, a real git remote
// served over HTTP on 127.0.0.1 (its main rewritten in the workspace, so
// only a force push moves it), each spelling through which git's
// configuration, its options or the line's own variables make git push
// by force asks with its reason; denied, the remote's main is unchanged.
// Last, one of them is allowed and does move the remote's main: the
// spellings are real force pushes. Two settings: the guard rail alone
// (no sandbox, unsandboxed_auto = true), where every spelling ran
// unasked before; and the OS sandbox with the global network = true,
// where the spellings whose git command only reads .git (grep, ls-remote,
// help, an alias of status) ran unasked. The guard rail alone also asks
// for a fetch into the remote's own repository (a local path) with a
// +refspec, which rewrites its main with no push at all, and for a push
// behind a shell function that runs git by "command".
func TestGitForcePushSpellingsAsk(t *testing.T) {
	t.Parallel()
	spellings := []string{
		// The -c alias wins over the repository's alias of status.
		"git -c alias.st='push -f' st origin main",
		// A command an option of a reading git command runs.
		"git grep -O'git push -f origin main #' one",
		"git ls-remote --upload-pack='git push -f origin main; git-upload-pack' .",
		"git -c man.viewer=x -c man.x.cmd='git push -f origin main #' help -m push",
		// Configuration the line writes, or hands git through variables.
		"git config alias.p 'push -f' && git p origin main",
		"env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push --force' git p origin main",
		"read -r GIT_CONFIG_COUNT <<< 1; export GIT_CONFIG_COUNT GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push -f'; git p origin main",
		// No push: the local remote's main rewritten in place.
		"git -C ../srv/remote.git fetch ../proj +main:main",
		`f() { command git "$@"; }; git() { f "$@"; }; git push --force origin main`,
		// A name that is no command, corrected by git to push.
		"git -c help.autocorrect=1 psh -f origin main",
	}
	for _, tc := range []struct {
		name     string
		settings string
		sandbox  bool
		forms    []string
	}{
		{"guard rail alone", "unsandboxed_auto = true\n\n[tools.sandbox]\nmode = \"off\"\n", false, spellings},
		{"sandbox with the network", "\n[tools.sandbox]\nnetwork = true\n", true, spellings[:4]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := ostest.OutsideTemp(t)
			r := newGitRemote(t, root)
			if out, err := exec.Command("git", "-C", r.ws, "config", "alias.st", "status").CombinedOutput(); err != nil {
				t.Fatalf("git config: %v\n%s", err, out)
			}
			home := filepath.Join(root, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				t.Fatal(err)
			}
			var answers []http.HandlerFunc
			for i, c := range tc.forms {
				answers = append(answers, oaCall(fmt.Sprintf("call_%d", i), "shell", map[string]any{"command": c}))
			}
			answers = append(answers, sseAnswer(false, oaTextResponse("denied")...),
				oaCall("call_allowed", "shell", map[string]any{"command": tc.forms[1]}), sseAnswer(false, oaTextResponse("done")...))
			llm := newLLMServer(t, answers...)
			ws := &clienttest.Workspace{Home: filepath.Join(root, "mc"), Cwd: r.ws}
			ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), openaiFormat.settings(llm.srv.URL)+"\n[tools]\napproval = \"auto\"\n"+tc.settings)
			env := []string{"MC_HOME=" + ws.Home, "HOME=" + home, "PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=sk-test-gitpush", "GIT_CONFIG_NOSYSTEM=1"}
			ch := startChild(t, ws, client.Options{Env: env})
			defer ch.Shutdown()
			var st struct {
				Sandbox string `json:"sandbox"`
			}
			if ch.Result("status", nil, &st); tc.sandbox && st.Sandbox != "workspace-write" {
				t.Skipf("no OS sandbox here (status sandbox %q)", st.Sandbox)
			}
			sid := ch.Create().SessionID
			runID, adm := ch.StartTurn(sid, "push")
			evs := denyAsks(t, ch, sid, runID, len(tc.forms), guard.ReasonGitPush, guard.ReasonOpaque, guard.ReasonRemoteHistory)
			run := ch.Finish(sid, runID, adm, evs)
			run.WantOutcome(t, "completed", "")
			if n := run.Count(protocol.EventApprovalRequested); n != len(tc.forms) {
				t.Errorf("%d approval requests; want %d", n, len(tc.forms))
			}
			if got := r.main(t); got != r.before {
				t.Fatalf("a denied spelling moved the remote's main from %s to %s", r.before, got)
			}
			// What the model was sent for each denied call says so, and
			// never carries git's output of a push.
			reqs := llm.recorded()
			if len(reqs) < len(tc.forms)+1 {
				t.Fatalf("%d provider requests; want at least %d", len(reqs), len(tc.forms)+1)
			}
			for i := 1; i <= len(tc.forms); i++ {
				if res := lastToolResult(t, reqs[i].Body); !strings.Contains(strings.ToLower(res), "denied") || strings.Contains(res, "forced update") {
					t.Errorf("tool result %d sent to the model: %q; want a denial", i, res)
				}
			}
			// The same spelling, allowed, moves the remote's main.
			runID, adm = ch.StartTurn(sid, "push, allowed")
			var allowEvs []client.Event
			ev := ch.UntilNamed(&allowEvs, runID, protocol.EventApprovalRequested)
			var req clienttest.ApprovalRequested
			if err := ev.Decode(&req); err != nil {
				t.Fatal(err)
			}
			ch.Answer(sid, runID, req.ApprovalID, true)
			ch.Finish(sid, runID, adm, allowEvs).WantOutcome(t, "completed", "")
			if got := r.main(t); got == r.before {
				t.Errorf("the allowed spelling %q did not move the remote's main", tc.forms[1])
			}
		})
	}
}

package runner

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
	guard "github.com/magi-code/magi-code/runner/shell"
)

// TestForgeClientsAskUnderAuto: under approval = "auto", through serve
// --stdio, the clients other than git that rewrite or delete a remote's
// history (hub, jj, sl, gh, glab: stand-ins on PATH that record that they
// ran), and git's own dashed git-push, ask with their reason, and
// denied, do not run; their ordinary
// commands run unasked. Aliases from the repository's own configuration
// (Mercurial's .hg/hgrc, jj's .jj/repo/config.toml) are read.
func TestForgeClientsAskUnderAuto(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	bin := filepath.Join(s.root, "bin")
	ranLog := filepath.Join(s.ws, "ran.log")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{".hg/hgrc": "[alias]\npf = push --force\n", ".jj/repo/config.toml": "[aliases]\np = [\"git\", \"push\"]\n",
		"../home/.config/gh/config.yml": "aliases:\n    rmref: api -X DELETE repos/o/r/git/refs/heads/main\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(s.ws, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The workspace's top directory holds metadata: the sandbox lets
	// commands write its files but create none there.
	if err := os.WriteFile(ranLog, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hub", "jj", "sl", "hg", "gh", "glab", "git-push"} {
		script := "#!/bin/sh\necho \"" + name + " $*\" >> " + clienttest.Quote(ranLog) + "\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	asks := []string{
		"hub push -f origin main",
		"git-push --force origin main",
		"jj git push --bookmark main",
		"sl push --force --to main",
		"hg pf default",
		"hg pus -f",
		"jj p --allow-new",
		"gh repo delete o/r --yes",
		"gh rmref", // an alias of the person's gh configuration
		"gh repo sync me/fork --force",
		"gh api -X DELETE repos/o/r/git/refs/heads/main",
		"gh api repos/o/r/git/refs/heads/main -X PATCH -f sha=0 -F force=true",
		"glab api --method delete projects/1/repository/branches/main",
		`gh api graphql -f query='mutation { deleteRef(input: {refId: "R"}) { clientMutationId } }'`,
	}
	runs := []string{"gh pr list", "jj --ignore-working-copy log -r main", "hg status"}
	var answers []http.HandlerFunc
	for i, c := range append(append([]string(nil), asks...), runs...) {
		answers = append(answers, oaCall(fmt.Sprintf("call_%d", i), "shell", map[string]any{"command": c}))
	}
	llm := newLLMServer(t, append(answers, sseAnswer(false, oaTextResponse("done")...))...)
	ws := &clienttest.Workspace{Home: filepath.Join(s.root, "mclink"), Cwd: s.ws}
	ws.WriteFile(t, filepath.Join(s.home, ".magi-code", "settings.toml"), openaiFormat.settings(llm.srv.URL)+"\n[tools]\napproval = \"auto\"\nunsandboxed_auto = true\n")
	env := []string{"MC_HOME=" + ws.Home, "HOME=" + s.home, "PATH=" + bin + ":" + os.Getenv("PATH"), "OPENAI_API_KEY=" + s.key}
	ch := startChild(t, ws, client.Options{Env: env})
	sid := ch.Create().SessionID
	runID, adm := ch.StartTurn(sid, "rewrite the remote")
	evs := denyAsks(t, ch, sid, runID, len(asks), guard.ReasonRemoteHistory, guard.ReasonGitPush)
	r := ch.Finish(sid, runID, adm, evs)
	r.WantOutcome(t, "completed", "")
	if n := r.Count(protocol.EventApprovalRequested); n != len(asks) {
		t.Errorf("%d approval requests; want %d", n, len(asks))
	}
	ch.Shutdown()
	if got, want := readFile(t, ranLog), strings.Join(runs, "\n")+"\n"; got != want {
		t.Errorf("the clients ran:\n%s\nwant only:\n%s", got, want)
	}
}

// denyAsks waits for n approval requests of the run, checks that each
// summary gives one of reasons, and denies each; it returns the events
// seen on the way, for ch.Finish.
func denyAsks(t *testing.T, ch *child, sid, runID string, n int, reasons ...guard.Reason) []client.Event {
	t.Helper()
	var evs []client.Event
	for range n {
		ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
		var req clienttest.ApprovalRequested
		if err := ev.Decode(&req); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(reasons, func(r guard.Reason) bool { return strings.Contains(req.Summary, string(r)) }) {
			t.Errorf("approval summary %q; want one of %q", req.Summary, reasons)
		}
		ch.Answer(sid, runID, req.ApprovalID, false)
	}
	return evs
}

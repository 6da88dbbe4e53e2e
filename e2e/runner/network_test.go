package runner

import (
	"fmt"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/protocol"
)

// gitRemote is a bare repository served over HTTP on 127.0.0.1 by git
// http-backend (pushes allowed), and a clone of it whose main was
// rewritten, so that only a force push moves the remote's main.
type gitRemote struct {
	bare, ws, url string
	before        string // the remote's main
}

func newGitRemote(t *testing.T, root string) *gitRemote {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	r := &gitRemote{bare: filepath.Join(root, "srv", "remote.git"), ws: filepath.Join(root, "proj")}
	g := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, d := range []string{r.bare, r.ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	g(r.bare, "init", "--bare", "-q")
	g(r.bare, "config", "http.receivepack", "true")
	g(r.ws, "init", "-q")
	if err := os.WriteFile(filepath.Join(r.ws, "f.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g(r.ws, "add", "f.txt")
	g(r.ws, "commit", "-q", "-m", "one")
	g(r.ws, "push", "-q", r.bare, "main")
	r.before = g(r.bare, "rev-parse", "refs/heads/main")
	g(r.ws, "commit", "-q", "--amend", "-m", "rewritten")
	srv := httptest.NewServer(&cgi.Handler{Path: gitBin, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(r.bare), "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + root}})
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/remote.git"
	g(r.ws, "remote", "add", "origin", r.url)
	return r
}

// main is the remote's main now.
func (r *gitRemote) main(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", r.bare, "rev-parse", "refs/heads/main").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestNetworkClosedUnderAuto: under approval = "auto", through serve
// --stdio with the fixture provider, a copy of git under another name
// (which the guard rail cannot read as git) force-pushes over HTTP to a
// remote on 127.0.0.1: it runs unasked, with no network, and the
// remote's main is unchanged. The same call with "network": true asks
// (the request names the network); denied, it does not run. With the
// global [tools.sandbox] network = true the same command runs unasked and
// does move the remote's main: the push is real, and only the closed
// network stopped it. Scratch roots lie outside /tmp and TMPDIR, which
// the sandbox makes writable.
func TestNetworkClosedUnderAuto(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		global string // more [tools.sandbox] settings
	}{
		{"closed by default", ""},
		{"global network = true", "\n[tools.sandbox]\nnetwork = true\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := ostest.OutsideTemp(t)
			r := newGitRemote(t, root)
			home := filepath.Join(root, "home")
			copyPath := fmt.Sprintf("/tmp/magi-e2e-g-%d", time.Now().UnixNano())
			t.Cleanup(func() { os.Remove(copyPath) })
			push := "cp $(command -v git) " + copyPath + " && " + copyPath + " push -f origin main"
			closed := tc.global == ""
			networkCall := toolCall("shell", map[string]any{"command": push, "network": true})
			ws := &clienttest.Workspace{Home: filepath.Join(root, "mc"), Cwd: r.ws}
			ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), script(t, root,
				[]step{shell(push)}, []step{text("done")}, []step{networkCall}, []step{text("done")})+
				"\n[tools]\napproval = \"auto\"\n"+tc.global)
			env := []string{"MC_HOME=" + ws.Home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
			ch := startChild(t, ws, client.Options{Env: env})
			defer ch.Shutdown()
			var st struct {
				Sandbox string `json:"sandbox"`
			}
			if ch.Result("status", nil, &st); st.Sandbox != "workspace-write" {
				t.Skipf("no OS sandbox here (status sandbox %q)", st.Sandbox)
			}
			sid := ch.Create().SessionID
			// The renamed git, unasked.
			run := ch.Turn(sid, "force push")
			run.WantOutcome(t, "completed", "")
			if n := run.Count(protocol.EventApprovalRequested); n != 0 {
				t.Errorf("%d approval requests for a command without the network; want 0", n)
			}
			got := r.main(t)
			switch {
			case closed && got != r.before:
				t.Fatalf("the unasked push moved the remote's main from %s to %s", r.before, got)
			case !closed && got == r.before:
				t.Fatal("with the global network = true the push did not reach the remote")
			}
			if !closed {
				return
			}
			// The same with "network": true asks; denied, it does not run.
			runID, adm := ch.StartTurn(sid, "force push with the network")
			var evs []client.Event
			ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
			var req clienttest.ApprovalRequested
			if err := ev.Decode(&req); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(req.Summary, "network") || !strings.Contains(req.Summary, "push -f origin main") {
				t.Errorf("approval summary %q; want the command and the network", req.Summary)
			}
			ch.Answer(sid, runID, req.ApprovalID, false)
			run = ch.Finish(sid, runID, adm, evs)
			run.WantOutcome(t, "completed", "")
			if n := run.Count(protocol.EventApprovalRequested); n != 1 {
				t.Errorf("%d approval requests; want 1", n)
			}
			if got := r.main(t); got != r.before {
				t.Errorf("after the denied request the remote's main is %s; want %s", got, r.before)
			}
		})
	}
}

package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
	guard "github.com/magi-code/magi-code/runner/shell"
)

// TestVCSMetadataReadOnlyUnderAuto: under approval = "auto", through serve
// --stdio with the fixture provider, the metadata of version control
// systems other than git stays as it was: a confined shell command cannot
// add a hook to Mercurial's .hg/hgrc (which the person's next hg command
// would run unconfined), nor move .hg aside, nor add an alias to a nested
// jj repository's .jj/repo/config.toml; write_file and edit_file are
// refused there; the rest of the workspace is written. Nothing asks. The
// scratch root is outside /tmp and TMPDIR, which the sandbox makes
// writable.
func TestVCSMetadataReadOnlyUnderAuto(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	hgrc := "[paths]\ndefault = https://example.invalid/repo\n"
	jjConfig := "[user]\nname = \"someone\"\n"
	for name, content := range map[string]string{".hg/hgrc": hgrc, "sub/.jj/repo/config.toml": jjConfig, "src/keep.txt": "keep\n"} {
		p := filepath.Join(s.ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	calls := []map[string]any{
		{"name": "shell", "arguments": map[string]any{"command": `printf '[hooks]\npre-status = touch ~/pwned\n' >> .hg/hgrc`}},
		{"name": "shell", "arguments": map[string]any{"command": `sh -c 'echo "[hooks]" > .hg/hgrc; echo x > .hg/hgrc.new'`}},
		{"name": "shell", "arguments": map[string]any{"command": `python3 -c "import os; os.rename('.hg', '.hg-old')" || perl -e 'rename ".hg", ".hg-old" or die'`}},
		{"name": "shell", "arguments": map[string]any{"command": `printf '[aliases]\nst = ["util", "exec", "--", "touch", "pwned"]\n' >> sub/.jj/repo/config.toml`}},
		{"name": "write_file", "arguments": map[string]any{"path": ".hg/hgrc", "content": "[hooks]\npre-status = touch ~/pwned\n"}},
		{"name": "edit_file", "arguments": map[string]any{"path": "sub/.jj/repo/config.toml", "old": "someone", "new": "x"}},
		{"name": "shell", "arguments": map[string]any{"command": `echo ok > src/new.txt`}},
	}
	s.confinedTurn(t, calls)
	if got := readFile(t, filepath.Join(s.ws, ".hg", "hgrc")); got != hgrc {
		t.Errorf(".hg/hgrc, run later unconfined by hg, became %q", got)
	}
	if got := readFile(t, filepath.Join(s.ws, "sub", ".jj", "repo", "config.toml")); got != jjConfig {
		t.Errorf("sub/.jj/repo/config.toml became %q", got)
	}
	for _, p := range []string{".hg-old", ".hg/hgrc.new"} {
		if _, err := os.Lstat(filepath.Join(s.ws, p)); err == nil {
			t.Errorf("%s exists", p)
		}
	}
	if got := readFile(t, filepath.Join(s.ws, "src", "new.txt")); got != "ok\n" {
		t.Errorf("src/new.txt = %q; want it written", got)
	}
}

// TestMercurialUnderAuto: with real Mercurial, under approval = "auto"
// through serve --stdio (the fixture provider's script): hg status runs
// unasked and works with .hg read-only; hg commit asks with the
// version-control-write reason and, approved, commits (it runs with the
// metadata writable); a hook a confined command appends to .hg/hgrc is
// refused, so the person's next hg command runs nothing of it. Skipped
// where hg or the sandbox is missing.
func TestMercurialUnderAuto(t *testing.T) {
	t.Parallel()
	hg, err := exec.LookPath("hg")
	if err != nil {
		t.Skip("hg is not installed (apt-get install mercurial)")
	}
	s := newReadScene(t)
	hgEnv := []string{"PATH=" + filepath.Dir(hg) + ":/usr/bin:/bin", "HOME=" + s.home, "HGUSER=t <t@example.invalid>", "HGPLAIN=1"}
	setup := exec.Command("/bin/sh", "-c", "hg init -q && hg add -q inside.txt && hg commit -q -m one && echo more >> inside.txt")
	setup.Dir, setup.Env = s.ws, hgEnv
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("setting up the repository: %v %s", err, out)
	}
	hgrc := filepath.Join(s.ws, ".hg", "hgrc")
	if err := os.WriteFile(hgrc, []byte("[ui]\nusername = t <t@example.invalid>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, hgrc)
	cmds := []string{"hg status", "hg commit -m two", `printf '[hooks]\npre-status = touch ` + filepath.Join(s.root, "pwned") + `\n' >> .hg/hgrc`}
	ws := &clienttest.Workspace{Home: filepath.Join(s.root, "mclink"), Cwd: s.ws}
	ws.WriteFile(t, filepath.Join(s.home, ".magi-code", "settings.toml"), fixtureAuto(callScript(t, s.root, shellCalls(cmds...)), ""))
	ch := startChild(t, ws, client.Options{Env: append([]string{"MC_HOME=" + ws.Home}, hgEnv...)})
	var st struct {
		Sandbox string `json:"sandbox"`
	}
	if ch.Result("status", nil, &st); st.Sandbox != "workspace-write" {
		ch.Shutdown()
		t.Skipf("no OS sandbox here (status sandbox %q)", st.Sandbox)
	}
	sid := ch.Create().SessionID
	runID, adm := ch.StartTurn(sid, "commit")
	var evs []client.Event
	ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
	var req clienttest.ApprovalRequested
	if err := ev.Decode(&req); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(req.Summary, string(guard.ReasonVCSWrite)) || !strings.Contains(req.Summary, "hg commit") {
		t.Errorf("approval summary %q; want hg commit with %q", req.Summary, guard.ReasonVCSWrite)
	}
	ch.Answer(sid, runID, req.ApprovalID, true)
	r := ch.Finish(sid, runID, adm, evs)
	r.WantOutcome(t, "completed", "")
	if n := r.Count(protocol.EventApprovalRequested); n != 1 {
		t.Errorf("%d approval requests; want 1 (hg commit)", n)
	}
	ch.Shutdown()
	log := exec.Command(hg, "log", "--template", "{desc}\n")
	log.Dir, log.Env = s.ws, hgEnv
	out, err := log.Output()
	if err != nil || string(out) != "two\none\n" {
		t.Errorf("hg log = %q, %v; want the approved commit on top", out, err)
	}
	if got := readFile(t, hgrc); got != before {
		t.Errorf(".hg/hgrc became %q", got)
	}
	status := exec.Command(hg, "status")
	status.Dir, status.Env = s.ws, hgEnv
	_ = status.Run()
	if _, err := os.Stat(filepath.Join(s.root, "pwned")); err == nil {
		t.Error("the person's next hg status ran a planted hook")
	}
}

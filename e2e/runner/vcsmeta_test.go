package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
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
	var script struct {
		Responses []map[string]any `json:"responses"`
	}
	for _, c := range calls {
		script.Responses = append(script.Responses, map[string]any{"steps": []any{map[string]any{"tool_call": c}}})
	}
	script.Responses = append(script.Responses, map[string]any{"steps": []any{map[string]any{"text": "done"}}})
	b, err := json.Marshal(script)
	if err != nil {
		t.Fatal(err)
	}
	scriptPath := filepath.Join(s.root, "script.json")
	if err := os.WriteFile(scriptPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ch := s.start(t, "provider = \"fixture\"\nmodel = \"fixture-model\"\n\n[providers.fixture]\nscript = "+
		clienttest.Quote(scriptPath)+"\n\n[tools]\napproval = \"auto\"\n")
	var st struct {
		Sandbox string `json:"sandbox"`
	}
	if ch.Result("status", nil, &st); st.Sandbox != "workspace-write" {
		ch.Shutdown()
		t.Skipf("no OS sandbox here (status sandbox %q)", st.Sandbox)
	}
	r := ch.Turn(ch.Create().SessionID, "plant a hook")
	r.WantOutcome(t, "completed", "")
	if n := r.Count(protocol.EventApprovalRequested); n != 0 {
		t.Errorf("%d approval requests under auto; want 0", n)
	}
	ch.Shutdown()
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

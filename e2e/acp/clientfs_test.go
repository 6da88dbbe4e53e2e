//go:build unix

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
)

// TestClientFSNeverHandedOutside drives `magi-code acp` with a client that
// reads and writes files for the agent as an editor does: by path,
// following symlinks. The model names workspace links to a canary outside
// the workspace, to a fake credential file and to the agent's own
// /proc/self/environ through a missing directory and "..": spellings that
// once resolved to the link itself, unresolved, and so reached the editor,
// which followed them. Now the editor is handed no path that leads
// outside, the outside files are neither read into the conversation nor
// changed, and a plain workspace file still goes through the editor (the
// control).
func TestClientFSNeverHandedOutside(t *testing.T) {
	outside := ostest.OutsideTemp(t)
	canary := filepath.Join(outside, "secret.txt")
	creds := filepath.Join(outside, ".aws", "credentials")
	for p, c := range map[string]string{canary: "OUTSIDE-CANARY\n", creds: "[default]\naws_secret_access_key = CRED-CANARY\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var steps [][]clienttest.Step
	for _, p := range []string{"missing/../link", "missing/../creds", "missing/../environ", "sub/gone/../../link", "missing/../outdir/secret.txt"} {
		steps = append(steps,
			response(clienttest.ToolCall("read_file", map[string]any{"path": p})),
			response(clienttest.ToolCall("write_file", map[string]any{"path": p, "content": "OVERWRITTEN"})),
			response(clienttest.ToolCall("edit_file", map[string]any{"path": p, "old": "CANARY", "new": "EDITED"})))
	}
	steps = append(steps, response(clienttest.ToolCall("read_file", map[string]any{"path": "a.txt"})), response(text("done")))
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "auto", Responses: steps})
	ws.WriteFile(t, filepath.Join(ws.Cwd, "a.txt"), "inside-control\n")
	ws.WriteFile(t, filepath.Join(ws.Cwd, "sub", "keep.txt"), "kept\n")
	for name, target := range map[string]string{"link": canary, "creds": creds, "environ": "/proc/self/environ", "outdir": outside} {
		if err := os.Symlink(target, filepath.Join(ws.Cwd, name)); err != nil {
			t.Fatal(err)
		}
	}
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	var handed []string
	resp, frames := a.until(a.prompt(sid, "go"), func(f frame) {
		var p struct{ Path, Content string }
		_ = json.Unmarshal(f.Params, &p)
		switch f.Method {
		case "fs/read_text_file":
			handed = append(handed, p.Path)
			b, err := os.ReadFile(p.Path)
			if err != nil {
				a.send(map[string]any{"jsonrpc": "2.0", "id": f.ID, "error": map[string]any{"code": -32603, "message": "read failed"}})
				return
			}
			a.respond(f.ID, map[string]any{"content": string(b)})
		case "fs/write_text_file":
			handed = append(handed, p.Path)
			_ = os.WriteFile(p.Path, []byte(p.Content), 0o644)
			a.respond(f.ID, map[string]any{})
		}
	})
	if stopReason(t, resp) != "end_turn" {
		t.Fatalf("prompt: %s", resp.raw)
	}
	for _, p := range handed {
		real, err := filepath.EvalSymlinks(p)
		cwd, _ := filepath.EvalSymlinks(ws.Cwd)
		if err != nil || !strings.HasPrefix(real, cwd+"/") {
			t.Errorf("the editor was handed %s, which leads to %s", p, real)
		}
	}
	if len(handed) != 1 || !strings.HasSuffix(handed[0], "/a.txt") {
		t.Errorf("the editor was handed %q; want a.txt alone", handed)
	}
	for _, f := range frames {
		for _, leak := range []string{"OUTSIDE-CANARY", "CRED-CANARY", "MC_HOME="} {
			if strings.Contains(f.raw, leak) {
				t.Errorf("%s reached the conversation: %.300s", leak, f.raw)
			}
		}
	}
	if !strings.Contains(strings.Join(rawFrames(frames), ""), "inside-control") {
		t.Error("the control file's content did not come back")
	}
	for p, want := range map[string]string{canary: "OUTSIDE-CANARY\n", creds: "[default]\naws_secret_access_key = CRED-CANARY\n"} {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s is now %q", p, b)
		}
	}
	a.wantExit(0)
}

func rawFrames(frames []frame) []string {
	out := make([]string, len(frames))
	for i, f := range frames {
		out[i] = f.raw
	}
	return out
}

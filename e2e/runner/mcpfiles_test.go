package runner

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/protocol"
)

// TestMCPApprovalBindsWorkspaceScript: through serve --stdio, an approved
// project server whose script lives in the workspace is not started once a
// command confined under approval = "auto" rewrote that script: the
// rewritten script's canary (outside /tmp and TMPDIR) never appears, status
// says not_approved and the log says the file changed. Approved again, it
// starts (and the canary shows that the rewritten script would have run).
func TestMCPApprovalBindsWorkspaceScript(t *testing.T) {
	t.Parallel()
	root := ostest.OutsideTemp(t)
	ws := &clienttest.Workspace{Home: filepath.Join(root, "mc"), Cwd: filepath.Join(root, "proj")}
	canary := filepath.Join(root, "canary")
	server := filepath.Join(ws.Cwd, "tools", "mcp.sh")
	ws.WriteFile(t, server, "exec "+clienttest.Quote(mcpServerBin)+"\n")
	ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"), "[mcp_servers.wsrv]\ncommand = \"sh\"\nargs = [\"tools/mcp.sh\"]\n")
	rewrite := "printf '%s\\n' " + clienttest.Quote("touch "+canary+"; exec "+mcpServerBin) + " > tools/mcp.sh"
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), script(t, root, []step{shell(rewrite)}, []step{text("done")})+
		"\n[tools]\napproval = \"auto\"\n")
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(clienttest.Binary(t), args...)
		cmd.Env, cmd.Dir = ws.Env(), ws.Cwd
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("magi-code %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	state := func(ch *child) string {
		t.Helper()
		var st struct {
			MCP []struct{ Name, State string } `json:"mcp_servers"`
		}
		var raw json.RawMessage
		ch.Result("status", map[string]any{}, &raw)
		if err := json.Unmarshal(raw, &st); err != nil || len(st.MCP) != 1 || st.MCP[0].Name != "wsrv" {
			t.Fatalf("status %s", raw)
		}
		return st.MCP[0].State
	}
	spawn := func() *child {
		t.Helper()
		ch := &child{ws.Spawn(t, client.Options{Env: ws.Env()})}
		ch.Result("initialize", map[string]any{"required_capabilities": append(slices.Clone(clienttest.AllCapabilities), protocol.CapabilityMCPStatus)}, nil)
		return ch
	}

	if out := cli("mcp", "approve", "wsrv"); !strings.Contains(out, "bound "+server+" sha256:") {
		t.Fatalf("mcp approve does not say it bound the script:\n%s", out)
	}
	ch := spawn()
	if s := state(ch); s != "running" {
		t.Fatalf("approved server %s", s)
	}
	sid := ch.Create().SessionID
	run := ch.Turn(sid, "rewrite the server")
	run.WantOutcome(t, "completed", "")
	if n := run.Count(protocol.EventApprovalRequested); n != 0 {
		t.Fatalf("the rewrite asked (%d approvals): the test needs it unasked", n)
	}
	ch.Shutdown()
	if data, err := os.ReadFile(server); err != nil || !strings.Contains(string(data), canary) {
		t.Fatalf("the confined command did not rewrite the script (%v): %q", err, data)
	}

	ch = spawn()
	if s := state(ch); s != "not_approved" {
		t.Errorf("rewritten script: server %s; want not_approved", s)
	}
	ch.Shutdown()
	if clienttest.FileExists(canary) {
		t.Fatal("the rewritten script ran at the next start, unapproved")
	}
	want := "MCP server wsrv is not approved: " + server + " changed since it was approved; run `magi-code mcp approve wsrv` again"
	if out := cli("logs"); !strings.Contains(out, want) {
		t.Errorf("magi-code logs lacks %q:\n%s", want, out)
	}
	if out := cli("mcp", "list"); !strings.Contains(out, "approved=false") || !strings.Contains(out, server+" changed since it was approved") {
		t.Errorf("mcp list:\n%s", out)
	}

	cli("mcp", "approve", "wsrv")
	ch = spawn()
	if s := state(ch); s != "running" {
		t.Errorf("approved again: server %s; want running", s)
	}
	ch.Shutdown()
	if !clienttest.FileExists(canary) {
		t.Error("approved again, the rewritten script did not run: the canary proves nothing")
	}
}

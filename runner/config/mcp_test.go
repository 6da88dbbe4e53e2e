package config

import (
	"errors"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

func names(list []MCPServer) []string {
	var out []string
	for _, m := range list {
		out = append(out, m.Name)
	}
	return out
}

func TestMCPApproval(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal+`
[mcp_servers.global]
command = "/bin/global-server"
args = ["--stdio"]
env = {GLOBAL_TOKEN = "x"}

[mcp_servers.off]
command = "/bin/off"
enabled = false

[mcp_servers.reenabled]
command = "/bin/reenabled"
enabled = false

[mcp_servers.web]
url = "http://127.0.0.1:9000/mcp"
`, 0o644)
	w.write(t, "cwd/.magi-code/settings.toml", `
[mcp_servers.proj]
command = "./server"
cwd = "tools"
enabled = true

[mcp_servers.reenabled]
enabled = true
`, 0o644)
	check := func(step string, started, unapproved []string) {
		t.Helper()
		snap, code := w.load(t)
		if code != "" {
			t.Fatalf("%s: Load = %q (logs %q)", step, code, w.logs)
		}
		if got := names(snap.MCPServers); !slices.Equal(got, started) {
			t.Errorf("%s: started %q; want %q", step, got, started)
		}
		if got := names(snap.MCPUnapproved); !slices.Equal(got, unapproved) {
			t.Errorf("%s: unapproved %q; want %q", step, got, unapproved)
		}
	}
	// Project enabled = true cannot approve itself, not even for a server the
	// global file defines.
	check("initial", []string{"global", "web"}, []string{"proj", "reenabled"})

	if _, err := Approve(w.env(), "proj"); err != nil {
		t.Fatal(err)
	}
	check("proj approved", []string{"global", "proj", "web"}, []string{"reenabled"})
	st, err := os.Stat(w.path("home/mcp-approvals.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("approvals file mode %v, %v; want 0600", st.Mode().Perm(), err)
	}
	if _, err := Approve(w.env(), "reenabled"); err != nil {
		t.Fatal(err)
	}
	check("both approved", []string{"global", "proj", "reenabled", "web"}, nil)

	// A changed definition needs approval again.
	w.write(t, "cwd/.magi-code/settings.toml", `
[mcp_servers.proj]
command = "./server"
args = ["--evil"]
cwd = "tools"

[mcp_servers.reenabled]
enabled = true
`, 0o644)
	check("proj changed", []string{"global", "reenabled", "web"}, []string{"proj"})
	// A changed global definition of a project-touched server also changes
	// the effective definition.
	w.write(t, "home/settings.toml", fixtureGlobal+"[mcp_servers.reenabled]\ncommand = \"/bin/other\"\nenabled = false\n", 0o644)
	check("global changed", nil, []string{"proj", "reenabled"})

	// Approvals stored with loose permissions are ignored.
	if _, err := Approve(w.env(), "proj"); err != nil {
		t.Fatal(err)
	}
	os.Chmod(w.path("home/mcp-approvals.json"), 0o644)
	check("loose approvals", nil, []string{"proj", "reenabled"})
	if _, err := Approve(w.env(), "proj"); err == nil {
		t.Errorf("Approve with a loose approvals file succeeded")
	}

	if _, err := Approve(w.env(), "nosuch"); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("Approve(nosuch) = %v; want ErrUnknownServer", err)
	}
}

func TestMCPApprovalIsPerDefiningFile(t *testing.T) {
	// The same definition in another workspace's project file is a different
	// definition source and needs its own approval.
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	def := "[mcp_servers.s]\ncommand = \"/bin/s\"\n"
	w.write(t, "cwd/.magi-code/settings.toml", def, 0o644)
	w.write(t, "other/.magi-code/settings.toml", def, 0o644)
	if _, err := Approve(w.env(), "s"); err != nil {
		t.Fatal(err)
	}
	env := w.env()
	env.Cwd = w.path("other")
	list, err := ListMCP(env)
	if err != nil || len(list) != 1 || list[0].Approved {
		t.Fatalf("ListMCP in another workspace = %+v, %v; want s unapproved", list, err)
	}
	list, _ = ListMCP(w.env())
	if len(list) != 1 || !list[0].Approved || list[0].Source != SourceProject {
		t.Fatalf("ListMCP = %+v; want s approved, project", list)
	}
}

func TestMCPDetails(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal+`
[mcp_servers.s]
command = "/bin/s"
cwd = "srv"
env = {EXTRA = "1", PATH = "/custom"}
`, 0o644)
	snap, code := w.load(t)
	if code != "" || len(snap.MCPServers) != 1 {
		t.Fatalf("Load = %q, %d servers", code, len(snap.MCPServers))
	}
	s := snap.MCPServers[0]
	if s.Cwd != w.path("home/srv") {
		t.Errorf("Cwd = %q; want relative to the defining file", s.Cwd)
	}
	// The server's own entries, as defined; runner/mcp merges them over the
	// minimal inherited environment (its TestMinimalEnv).
	if want := map[string]string{"EXTRA": "1", "PATH": "/custom"}; !maps.Equal(s.Env, want) {
		t.Errorf("Env = %q; want %q", s.Env, want)
	}
	list, _ := ListMCP(w.env())
	if list[0].Env["EXTRA"] != Masked {
		t.Errorf("ListMCP env not masked: %v", list[0].Env)
	}
	if text := MCPText(list); !strings.Contains(text, "mcp s  enabled=true approved=true source=global") {
		t.Errorf("MCPText = %q", text)
	}
}

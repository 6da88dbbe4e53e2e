package config

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
)

// TestMCPCodexKeys: a global file with the [mcp_servers] tables a Codex user
// has loads, each key with Codex's meaning.
func TestMCPCodexKeys(t *testing.T) {
	w := newWorld(t)
	w.vars = map[string]string{"GH_TOKEN": "tok", "TEAM_ID": "core", "BLANK": "  "}
	w.write(t, "home/settings.toml", fixtureGlobal+`
[mcp_servers.web]
url = "http://127.0.0.1:9000/mcp"
bearer_token_env_var = "GH_TOKEN"
http_headers = { "X-Client" = "magi" }
env_http_headers = { "X-Team" = "TEAM_ID", "X-Unset" = "NOT_SET", "X-Blank" = "BLANK" }
startup_timeout_sec = 2.5
tool_timeout_sec = 120
enabled_tools = ["search", "fetch"]
disabled_tools = ["fetch"]

[mcp_servers.local]
command = "/bin/server"
cwd = "srv"

[mcp_servers.none]
command = "/bin/none"
enabled_tools = []
`, 0o644)
	snap, code := w.load(t)
	if code != "" {
		t.Fatalf("Load = %q (logs %q)", code, w.logs)
	}
	byName := map[string]MCPServer{}
	for _, m := range snap.MCPServers {
		byName[m.Name] = m
	}
	web, local, none := byName["web"], byName["local"], byName["none"]
	// Codex: env_http_headers leaves out a header whose variable is unset
	// or blank; bearer_token_env_var sends Authorization: Bearer.
	wantHeaders := map[string]string{"Authorization": "Bearer tok", "X-Client": "magi", "X-Team": "core"}
	if !maps.Equal(web.Headers, wantHeaders) {
		t.Errorf("web headers = %q; want %q", web.Headers, wantHeaders)
	}
	if web.StartupTimeout != 2500*time.Millisecond || web.ToolTimeout != 120*time.Second {
		t.Errorf("web timeouts = %v, %v; want 2.5s, 2m0s", web.StartupTimeout, web.ToolTimeout)
	}
	if !slices.Equal(web.EnabledTools, []string{"search", "fetch"}) || !slices.Equal(web.DisabledTools, []string{"fetch"}) {
		t.Errorf("web tool lists = %q, %q", web.EnabledTools, web.DisabledTools)
	}
	// Codex's defaults: 10 s to start, 60 s per tool call; no list, every tool.
	if local.StartupTimeout != 10*time.Second || local.ToolTimeout != 60*time.Second {
		t.Errorf("default timeouts = %v, %v; want 10s, 1m0s", local.StartupTimeout, local.ToolTimeout)
	}
	if local.EnabledTools != nil || local.Cwd != w.path("home/srv") {
		t.Errorf("local: enabled_tools %q (want nil), cwd %q", local.EnabledTools, local.Cwd)
	}
	// enabled_tools = [] is an allow list that offers nothing.
	if none.EnabledTools == nil || len(none.EnabledTools) != 0 {
		t.Errorf("enabled_tools = [] became %#v; want an empty, non-nil list", none.EnabledTools)
	}
	if strings.Contains(strings.Join(w.logs, "\n"), "tok") {
		t.Errorf("a header value reached the log: %q", w.logs)
	}
}

// TestMCPCodexKeyCodes: what each new key refuses, and where (the project
// file may not choose where the user's variables go).
func TestMCPCodexKeyCodes(t *testing.T) {
	url := "[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\n"
	cmd := "[mcp_servers.a]\ncommand = \"/bin/x\"\n"
	vars := map[string]string{"TOK": "t", "KEY": "k"}
	tests := []struct {
		name, global, project string
		want                  protocol.Code
	}{
		{"bearer_token_env_var", url + "bearer_token_env_var = \"TOK\"\n", "", ""},
		{"bearer_token_env_var unset", url + "bearer_token_env_var = \"NOPE\"\n", "", protocol.CodeMCPUnavailable},
		{"bearer_token_env_var not a name", url + "bearer_token_env_var = \"sk-secret value\"\n", "", protocol.CodeConfigurationInvalid},
		{"both bearer spellings", url + "bearer_token_env_var = \"TOK\"\nbearer_token_env = \"TOK\"\n", "", protocol.CodeConfigurationInvalid},
		{"bearer and an Authorization header", url + "bearer_token_env_var = \"TOK\"\nhttp_headers = { authorization = \"Basic x\" }\n", "", protocol.CodeConfigurationInvalid},
		{"a header twice", url + "http_headers = { \"X-Key\" = \"v\" }\nenv_http_headers = { \"x-key\" = \"KEY\" }\n", "", protocol.CodeConfigurationInvalid},
		{"env_headers and env_http_headers", url + "env_headers = { \"A\" = \"KEY\" }\nenv_http_headers = { \"B\" = \"KEY\" }\n", "", ""},
		{"env_http_headers literal value", url + "env_http_headers = { \"X-Key\" = \"a literal\" }\n", "", protocol.CodeConfigurationInvalid},
		{"http_headers reserved name", url + "http_headers = { \"Mcp-Session-Id\" = \"x\" }\n", "", protocol.CodeConfigurationInvalid},
		{"http_headers line break", url + "http_headers = { \"X-A\" = \"a\\r\\nX-B: b\" }\n", "", protocol.CodeConfigurationInvalid},
		{"http_headers not strings", url + "http_headers = { \"X-A\" = 1 }\n", "", protocol.CodeConfigurationInvalid},
		{"http_headers on a command server", cmd + "http_headers = { \"X-A\" = \"a\" }\n", "", protocol.CodeConfigurationInvalid},
		{"env_http_headers on a command server", cmd + "env_http_headers = { \"X-A\" = \"KEY\" }\n", "", protocol.CodeConfigurationInvalid},
		{"bearer_token_env_var on a command server", cmd + "bearer_token_env_var = \"TOK\"\n", "", protocol.CodeConfigurationInvalid},
		{"cwd on a url server", url + "cwd = \"x\"\n", "", protocol.CodeConfigurationInvalid},
		{"startup_timeout_sec integer", cmd + "startup_timeout_sec = 30\n", "", ""},
		{"startup_timeout_sec zero", cmd + "startup_timeout_sec = 0\n", "", protocol.CodeConfigurationInvalid},
		{"startup_timeout_sec negative", cmd + "startup_timeout_sec = -1.5\n", "", protocol.CodeConfigurationInvalid},
		{"startup_timeout_sec nan", cmd + "startup_timeout_sec = nan\n", "", protocol.CodeConfigurationInvalid},
		{"tool_timeout_sec a day", cmd + "tool_timeout_sec = 86400\n", "", ""},
		{"tool_timeout_sec over a day", cmd + "tool_timeout_sec = 86400.5\n", "", protocol.CodeConfigurationInvalid},
		{"tool_timeout_sec inf", cmd + "tool_timeout_sec = inf\n", "", protocol.CodeConfigurationInvalid},
		{"tool_timeout_sec string", cmd + "tool_timeout_sec = \"60\"\n", "", protocol.CodeConfigurationInvalid},
		{"enabled_tools empty name", cmd + "enabled_tools = [\"\"]\n", "", protocol.CodeConfigurationInvalid},
		{"disabled_tools not a list", cmd + "disabled_tools = \"x\"\n", "", protocol.CodeConfigurationInvalid},
		{"project bearer_token_env_var", url, "[mcp_servers.a]\nbearer_token_env_var = \"TOK\"\n", protocol.CodeConfigurationInvalid},
		{"project env_http_headers", url, "[mcp_servers.a]\nenv_http_headers = { \"X-A\" = \"KEY\" }\n", protocol.CodeConfigurationInvalid},
		// Literal headers name none of the user's variables: a project may
		// write them (its server then needs approval, as any).
		{"project http_headers", url, "[mcp_servers.a]\nhttp_headers = { \"X-A\" = \"a\" }\n", ""},
		{"project tool lists and timeouts", cmd, "[mcp_servers.a]\nenabled_tools = [\"t\"]\ndisabled_tools = [\"u\"]\ntool_timeout_sec = 5\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.vars = vars
			w.write(t, "home/settings.toml", fixtureGlobal+tc.global, 0o644)
			if tc.project != "" {
				w.write(t, "cwd/.magi-code/settings.toml", tc.project, 0o644)
			}
			if _, code := w.load(t); code != tc.want {
				t.Errorf("Load = %q; want %q (logs %q)", code, tc.want, w.logs)
			}
		})
	}
}

// TestMCPCodexKeysApproval: the keys that change what runs or which tools
// the model may call are part of the approved definition; the timeouts,
// which only bound it, are not. Approvals recorded before the new keys
// existed still hold.
func TestMCPCodexKeysApproval(t *testing.T) {
	base := "[mcp_servers.p]\nurl = \"http://127.0.0.1:1/mcp\"\n"
	for _, tc := range []struct {
		name, change string
		again        bool
	}{
		{"enabled_tools", "enabled_tools = [\"a\"]\n", true},
		{"enabled_tools empty", "enabled_tools = []\n", true},
		{"disabled_tools", "disabled_tools = [\"a\"]\n", true},
		{"http_headers", "http_headers = { \"X-A\" = \"a\" }\n", true},
		{"startup_timeout_sec", "startup_timeout_sec = 30\n", false},
		{"tool_timeout_sec", "tool_timeout_sec = 300\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
			w.write(t, "cwd/.magi-code/settings.toml", base, 0o644)
			if _, err := Approve(w.env(), "p"); err != nil {
				t.Fatal(err)
			}
			w.write(t, "cwd/.magi-code/settings.toml", base+tc.change, 0o644)
			snap, code := w.load(t)
			if code != "" {
				t.Fatalf("Load = %q (logs %q)", code, w.logs)
			}
			if got := len(snap.MCPUnapproved) == 1; got != tc.again {
				t.Errorf("after adding %q: needs approval again = %t; want %t", tc.change, got, tc.again)
			}
		})
	}
	// The digest of a definition without the new keys is what it was:
	// the path, a NUL, and the JSON of command/args/env/url/cwd and the
	// credential keys only.
	file := "/home/u/.magi-code/settings.toml"
	sum := sha256.Sum256([]byte(file + "\x00" + `{"command":"/bin/s","args":["-v"]}`))
	timeout := 30.0
	if got := digest(file, MCPConfig{Command: "/bin/s", Args: []string{"-v"}, StartupTimeoutSec: &timeout, ToolTimeoutSec: &timeout}); got != hex.EncodeToString(sum[:]) {
		t.Errorf("digest of an old definition changed: %s", got)
	}
}

// TestMCPHTTPHeadersMasked: literal header values may be secrets; config
// show and mcp list mask them like env values.
func TestMCPHTTPHeadersMasked(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\nhttp_headers = { \"X-Plain\" = \"visible-looking-value\" }\n", 0o644)
	d, err := Describe(w.env())
	if err != nil {
		t.Fatal(err)
	}
	if text := d.Text(); strings.Contains(text, "visible-looking-value") || !strings.Contains(text, "http_headers") {
		t.Errorf("config show prints a header value, or no header key:\n%s", text)
	}
	list, err := ListMCP(w.env())
	if err != nil || len(list) != 1 {
		t.Fatalf("ListMCP = %v, %v", list, err)
	}
	if list[0].HTTPHeaders["X-Plain"] != Masked || list[0].Headers != nil {
		t.Errorf("ListMCP headers = %q, %q; want masked, none", list[0].HTTPHeaders, list[0].Headers)
	}
}

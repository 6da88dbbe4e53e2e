package config

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

type file struct {
	path, text string
	mode       os.FileMode
}

func f(path, text string) file                 { return file{path, text, 0o644} }
func fm(path, text string, m os.FileMode) file { return file{path, text, m} }

func TestLoadCodes(t *testing.T) {
	openai := "provider = \"openai\"\nmodel = \"gpt-x\"\n"
	anthropic := "provider = \"anthropic\"\nmodel = \"claude-x\"\n"
	goodProfile := "---\nname: helper\ndescription: helps\nmode: subagent\ntools: [read_file, grep]\n---\nYou help.\n"
	tests := []struct {
		name  string
		files []file
		vars  map[string]string
		want  protocol.Code
	}{
		{"fixture ready", []file{f("home/settings.toml", fixtureGlobal)}, nil, ""},
		{"no settings at all", nil, nil, protocol.CodeProviderUnavailable},
		{"no provider", []file{f("home/settings.toml", "model = \"m\"\n")}, nil, protocol.CodeProviderUnavailable},
		{"invalid TOML", []file{f("home/settings.toml", "provider = \n")}, nil, protocol.CodeConfigurationInvalid},
		{"invalid TOML in project", []file{f("home/settings.toml", fixtureGlobal), f("cwd/.magi-code/settings.toml", "[tools\n")}, nil, protocol.CodeConfigurationInvalid},
		{"duplicate key", []file{f("home/settings.toml", fixtureGlobal+fixtureGlobal)}, nil, protocol.CodeConfigurationInvalid},
		{"provider wrong type", []file{f("home/settings.toml", "provider = 1\n")}, nil, protocol.CodeConfigurationInvalid},
		{"approval wrong type", []file{f("home/settings.toml", fixtureGlobal+"[tools]\napproval = true\n")}, nil, protocol.CodeConfigurationInvalid},
		{"approval bad value", []file{f("home/settings.toml", fixtureGlobal+"[tools]\napproval = \"sometimes\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"float for integer", []file{f("home/settings.toml", fixtureGlobal+"context_window = 1.5\n")}, nil, protocol.CodeConfigurationInvalid},
		{"string for integer", []file{f("home/settings.toml", fixtureGlobal+"context_window = \"9\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"providers not a table", []file{f("home/settings.toml", fixtureGlobal+"providers = 3\n")}, nil, protocol.CodeConfigurationInvalid},
		{"unknown key", []file{f("home/settings.toml", fixtureGlobal+"colour = \"red\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"unknown provider", []file{f("home/settings.toml", "provider = \"acme\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"newer schema", []file{f("home/settings.toml", "schema_version = 3\n"+fixtureGlobal)}, nil, protocol.CodeConfigurationInvalid},
		{"schema not integer", []file{f("home/settings.toml", "schema_version = \"2\"\n"+fixtureGlobal)}, nil, protocol.CodeConfigurationInvalid},
		{"bad thinking", []file{f("home/settings.toml", fixtureGlobal+"thinking = \"lots\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"wire_api chat", []file{f("home/settings.toml", openai+"[providers.openai]\nwire_api = \"chat\"\n")}, map[string]string{"OPENAI_API_KEY": "k"}, ""},
		{"wire_api responses", []file{f("home/settings.toml", openai+"[providers.openai]\nwire_api = \"responses\"\n")}, map[string]string{"OPENAI_API_KEY": "k"}, ""},
		{"wire_api unknown", []file{f("home/settings.toml", openai+"[providers.openai]\nwire_api = \"completions\"\n")}, map[string]string{"OPENAI_API_KEY": "k"}, protocol.CodeConfigurationInvalid},
		{"wire_api on anthropic", []file{f("home/settings.toml", openai+"[providers.anthropic]\nwire_api = \"chat\"\n")}, map[string]string{"OPENAI_API_KEY": "k"}, protocol.CodeConfigurationInvalid},
		{"bad base_url", []file{f("home/settings.toml", openai+"[providers.openai]\nbase_url = \"ftp://x\"\n")}, map[string]string{"OPENAI_API_KEY": "k"}, protocol.CodeConfigurationInvalid},
		{"hook bad event", []file{f("home/settings.toml", fixtureGlobal+"[[hooks]]\nevent = \"whenever\"\ncommand = \"true\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"hook bad matcher", []file{f("home/settings.toml", fixtureGlobal+"[[hooks]]\nevent = \"pre_tool_use\"\nmatcher = \"(shell\"\ncommand = \"true\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"hook regexp matcher", []file{f("home/settings.toml", fixtureGlobal+"[[hooks]]\nevent = \"pre_tool_use\"\nmatcher = \"write_file|mcp__.*\"\ncommand = \"true\"\n")}, nil, ""},
		{"project hooks", []file{f("home/settings.toml", fixtureGlobal), f("work/.magi-code/settings.toml", "[[hooks]]\nevent = \"stop\"\ncommand = \"true\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"project base_url", []file{f("home/settings.toml", fixtureGlobal), f("work/.magi-code/settings.toml", "[providers.openai]\nbase_url = \"http://127.0.0.1:1/v1\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"project model is fine", []file{f("home/settings.toml", fixtureGlobal), f("work/.magi-code/settings.toml", "[providers.openai]\nmodel = \"m\"\n")}, nil, ""},
		{"project relaxes approval", []file{f("home/settings.toml", fixtureGlobal), f("work/.magi-code/settings.toml", "[tools]\napproval = \"auto\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"project keeps global auto", []file{f("home/settings.toml", fixtureGlobal+"[tools]\napproval = \"auto\"\n"), f("work/.magi-code/settings.toml", "[tools]\napproval = \"auto\"\n")}, nil, ""},
		{"project relaxes code mode approval", []file{f("home/settings.toml", fixtureGlobal), f("work/.magi-code/settings.toml", "[tools.code_mode]\napproval = \"auto\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"instruction not markdown is skipped", []file{f("home/settings.toml", fixtureGlobal+"instructions = [\"notes.txt\"]\n"), f("home/notes.txt", "x")}, nil, ""},
		{"protections from the global file", []file{f("home/settings.toml", fixtureGlobal+"[tools.protections]\nallow_git_internals = true\n")}, nil, ""},
		{"protections from a project file", []file{f("home/settings.toml", fixtureGlobal), f("work/.magi-code/settings.toml", "[tools.protections]\nallow_outside_cwd = true\n")}, nil, protocol.CodeConfigurationInvalid},
		{"anthropic token_url not a URL", []file{f("home/settings.toml", fixtureGlobal+"[providers.anthropic]\ntoken_url = \"file:///x\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"hook ok", []file{f("home/settings.toml", fixtureGlobal+"[[hooks]]\nevent = \"pre_tool_use\"\nmatcher = \"shell\"\ncommand = \"true\"\n")}, nil, ""},
		{"code mode ok", []file{f("home/settings.toml", fixtureGlobal+"[tools.code_mode]\nenabled = true\nallow = [\"read_file\"]\napproval = \"auto\"\n")}, nil, ""},
		{"oversized settings", []file{f("home/settings.toml", fixtureGlobal+"# "+strings.Repeat("x", MaxFileBytes)+"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"settings is a directory", []file{f("home/settings.toml/x", "")}, nil, protocol.CodeConfigurationInvalid},
		{"mcp command and url", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\ncommand = \"x\"\nurl = \"http://127.0.0.1:1/mcp\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"mcp neither command nor url", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nargs = []\n")}, nil, protocol.CodeConfigurationInvalid},
		{"mcp bad name", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.\"a b\"]\ncommand = \"x\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"mcp env not strings", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\ncommand = \"x\"\nenv = {A = 1}\n")}, nil, protocol.CodeConfigurationInvalid},
		{"mcp bearer_token_env set", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\nbearer_token_env = \"MCP_TOK\"\nenv_headers = {\"X-Key\" = \"MCP_KEY\"}\n")}, map[string]string{"MCP_TOK": "t", "MCP_KEY": "k"}, ""},
		{"mcp bearer_token_env unset", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\nbearer_token_env = \"MCP_TOK\"\n")}, nil, protocol.CodeMCPUnavailable},
		{"mcp env_headers variable unset", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\nenv_headers = {\"X-Key\" = \"MCP_KEY\"}\n")}, map[string]string{"MCP_TOK": "t"}, protocol.CodeMCPUnavailable},
		{"mcp disabled server's variable unset", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\nbearer_token_env = \"MCP_TOK\"\nenabled = false\n")}, nil, ""},
		{"mcp bearer_token_env on a command server", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\ncommand = \"x\"\nbearer_token_env = \"MCP_TOK\"\n")}, map[string]string{"MCP_TOK": "t"}, protocol.CodeConfigurationInvalid},
		{"mcp bearer_token_env not a variable name", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\nbearer_token_env = \"sk-literal-secret\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"mcp env_headers literal value", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\nenv_headers = {\"X-Key\" = \"literal secret\"}\n")}, nil, protocol.CodeConfigurationInvalid},
		{"mcp env_headers reserved header", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\nenv_headers = {\"Mcp-Session-Id\" = \"MCP_KEY\"}\n")}, map[string]string{"MCP_KEY": "k"}, protocol.CodeConfigurationInvalid},
		{"mcp env_headers bad header name", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\nenv_headers = {\"X Key\" = \"MCP_KEY\"}\n")}, map[string]string{"MCP_KEY": "k"}, protocol.CodeConfigurationInvalid},
		{"mcp Authorization twice", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\nbearer_token_env = \"MCP_TOK\"\nenv_headers = {\"authorization\" = \"MCP_KEY\"}\n")}, map[string]string{"MCP_TOK": "t", "MCP_KEY": "k"}, protocol.CodeConfigurationInvalid},
		{"mcp bearer_token_env from a project file", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\nurl = \"http://127.0.0.1:1/mcp\"\n"), f("work/.magi-code/settings.toml", "[mcp_servers.a]\nbearer_token_env = \"MCP_TOK\"\n")}, map[string]string{"MCP_TOK": "t"}, protocol.CodeConfigurationInvalid},
		{"mcp env_headers from a project file", []file{f("home/settings.toml", fixtureGlobal), f("work/.magi-code/settings.toml", "[mcp_servers.b]\nurl = \"http://127.0.0.1:1/mcp\"\nenv_headers = {\"X-Key\" = \"MCP_KEY\"}\n")}, map[string]string{"MCP_KEY": "k"}, protocol.CodeConfigurationInvalid},
		{"retention 0", []file{f("home/settings.toml", fixtureGlobal+"session_retention_days = 0\n")}, nil, ""},
		{"retention negative", []file{f("home/settings.toml", fixtureGlobal+"session_retention_days = -1\n")}, nil, protocol.CodeConfigurationInvalid},
		{"log_level from a project file", []file{f("home/settings.toml", fixtureGlobal), f("work/.magi-code/settings.toml", "log_level = \"debug\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"log_level from the global file", []file{f("home/settings.toml", fixtureGlobal+"log_level = \"debug\"\n")}, nil, ""},
		{"retention from a project file", []file{f("home/settings.toml", fixtureGlobal), f("work/.magi-code/settings.toml", "session_retention_days = 1\n")}, nil, protocol.CodeConfigurationInvalid},
		{"mcp unknown key", []file{f("home/settings.toml", fixtureGlobal+"[mcp_servers.a]\ncommand = \"x\"\nheaders = {}\n")}, nil, protocol.CodeConfigurationInvalid},
		{"fixture script good", []file{f("home/settings.toml", fixtureGlobal+"[providers.fixture]\nscript = \"script.json\"\n"), f("home/script.json", `{"responses":[{"steps":[{"text":"hi"}]}]}`)}, nil, ""},
		{"fixture script invalid", []file{f("home/settings.toml", fixtureGlobal+"[providers.fixture]\nscript = \"script.json\"\n"), f("home/script.json", `{"responses":[{"steps":[{"text":"hi","error":"x"}]}]}`)}, nil, protocol.CodeConfigurationInvalid},
		{"fixture script missing", []file{f("home/settings.toml", fixtureGlobal+"[providers.fixture]\nscript = \"nope.json\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"openai env key", []file{f("home/settings.toml", openai)}, map[string]string{"OPENAI_API_KEY": "sk-test"}, ""},
		{"openai custom env key", []file{f("home/settings.toml", openai+"[providers.openai]\napi_key_env = \"MY_KEY\"\n")}, map[string]string{"MY_KEY": "k"}, ""},
		{"openai custom env unset", []file{f("home/settings.toml", openai+"[providers.openai]\napi_key_env = \"MY_KEY\"\n")}, map[string]string{"OPENAI_API_KEY": "k"}, protocol.CodeProviderUnavailable},
		{"openai missing key", []file{f("home/settings.toml", openai)}, nil, protocol.CodeProviderUnavailable},
		{"openai no model", []file{f("home/settings.toml", "provider = \"openai\"\n")}, map[string]string{"OPENAI_API_KEY": "k"}, protocol.CodeProviderUnavailable},
		{"openai model from table", []file{f("home/settings.toml", "provider = \"openai\"\n[providers.openai]\nmodel = \"m\"\n")}, map[string]string{"OPENAI_API_KEY": "k"}, ""},
		{"auth.json api key", []file{f("home/settings.toml", openai), fm("home/auth.json", `{"openai":{"type":"api_key","key":"k"}}`, 0o600)}, nil, ""},
		{"auth.json 0644 refused", []file{f("home/settings.toml", openai), fm("home/auth.json", `{"openai":{"type":"api_key","key":"k"}}`, 0o644)}, nil, protocol.CodeProviderUnavailable},
		{"auth.json 0640 refused", []file{f("home/settings.toml", openai), fm("home/auth.json", `{"openai":{"type":"api_key","key":"k"}}`, 0o640)}, nil, protocol.CodeProviderUnavailable},
		{"auth.json invalid JSON", []file{f("home/settings.toml", openai), fm("home/auth.json", `{"openai":`, 0o600)}, nil, protocol.CodeProviderUnavailable},
		{"auth.json unknown type", []file{f("home/settings.toml", openai), fm("home/auth.json", `{"openai":{"type":"magic","key":"k"}}`, 0o600)}, nil, protocol.CodeProviderUnavailable},
		{"auth.json other provider only", []file{f("home/settings.toml", openai), fm("home/auth.json", `{"anthropic":{"type":"api_key","key":"k"}}`, 0o600)}, nil, protocol.CodeProviderUnavailable},
		{"oauth valid", []file{f("home/settings.toml", anthropic), fm("home/auth.json", `{"anthropic":{"type":"oauth","access_token":"a","expires_at":"2026-06-01T00:00:00Z"}}`, 0o600)}, nil, ""},
		{"oauth expired no refresh", []file{f("home/settings.toml", anthropic), fm("home/auth.json", `{"anthropic":{"type":"oauth","access_token":"a","expires_at":"2025-06-01T00:00:00Z"}}`, 0o600)}, nil, protocol.CodeProviderUnavailable},
		{"oauth expired at exact instant", []file{f("home/settings.toml", anthropic), fm("home/auth.json", `{"anthropic":{"type":"oauth","access_token":"a","expires_at":"2026-01-02T03:04:05Z"}}`, 0o600)}, nil, protocol.CodeProviderUnavailable},
		{"oauth expired with refresh, no token_url", []file{f("home/settings.toml", anthropic), fm("home/auth.json", `{"anthropic":{"type":"oauth","access_token":"a","refresh_token":"r","expires_at":"2025-06-01T00:00:00Z"}}`, 0o600)}, nil, protocol.CodeProviderUnavailable},
		{"oauth expired with refresh and token_url", []file{f("home/settings.toml", anthropic+"[providers.anthropic]\ntoken_url = \"https://auth.example/token\"\n"), fm("home/auth.json", `{"anthropic":{"type":"oauth","access_token":"a","refresh_token":"r","expires_at":"2025-06-01T00:00:00Z"}}`, 0o600)}, nil, ""},
		{"oauth refresh only with token_url", []file{f("home/settings.toml", anthropic+"[providers.anthropic]\ntoken_url = \"https://auth.example/token\"\n"), fm("home/auth.json", `{"anthropic":{"type":"oauth","refresh_token":"r"}}`, 0o600)}, nil, ""},
		{"oauth refresh only, no token_url", []file{f("home/settings.toml", anthropic), fm("home/auth.json", `{"anthropic":{"type":"oauth","refresh_token":"r"}}`, 0o600)}, nil, protocol.CodeProviderUnavailable},
		{"openai oauth valid", []file{f("home/settings.toml", openai), fm("home/auth.json", `{"openai":{"type":"oauth","access_token":"a","expires_at":"2026-06-01T00:00:00Z"}}`, 0o600)}, nil, ""},
		{"openai oauth expired, no token_url", []file{f("home/settings.toml", openai), fm("home/auth.json", `{"openai":{"type":"oauth","access_token":"a","refresh_token":"r","expires_at":"2025-06-01T00:00:00Z"}}`, 0o600)}, nil, protocol.CodeProviderUnavailable},
		{"openai oauth expired with token_url", []file{f("home/settings.toml", openai+"[providers.openai]\ntoken_url = \"https://auth.example/token\"\nclient_id = \"c\"\nmax_tokens = 100\n"), fm("home/auth.json", `{"openai":{"type":"oauth","access_token":"a","refresh_token":"r","expires_at":"2025-06-01T00:00:00Z"}}`, 0o600)}, nil, ""},
		{"oauth bad expiry", []file{f("home/settings.toml", anthropic), fm("home/auth.json", `{"anthropic":{"type":"oauth","access_token":"a","expires_at":"tomorrow"}}`, 0o600)}, nil, protocol.CodeProviderUnavailable},
		{"env key wins over refused auth.json", []file{f("home/settings.toml", anthropic), fm("home/auth.json", `{}`, 0o644)}, map[string]string{"ANTHROPIC_API_KEY": "k"}, ""},
		{"good profile", []file{f("home/settings.toml", fixtureGlobal), f("home/agents/helper.md", goodProfile)}, nil, ""},
		{"profile unclosed front matter", []file{f("home/settings.toml", fixtureGlobal), f("home/agents/x.md", "---\nname: x\ndescription: d\n")}, nil, protocol.CodeProfileInvalid},
		{"profile without front matter", []file{f("home/settings.toml", fixtureGlobal), f("cwd/.magi-code/agents/x.md", "just text\n")}, nil, protocol.CodeProfileInvalid},
		{"profile bad mode", []file{f("home/settings.toml", fixtureGlobal), f("home/agents/x.md", "---\ndescription: d\nmode: boss\n---\n")}, nil, protocol.CodeProfileInvalid},
		{"profile no description", []file{f("home/settings.toml", fixtureGlobal), f("home/agents/x.md", "---\nname: x\n---\n")}, nil, protocol.CodeProfileInvalid},
		{"profile nested yaml", []file{f("home/settings.toml", fixtureGlobal), f("home/agents/x.md", "---\ndescription: d\nperms:\n  read: yes\n---\n")}, nil, ""},
		{"profile bad yaml", []file{f("home/settings.toml", fixtureGlobal), f("home/agents/x.md", "---\ndescription: [d\n---\n")}, nil, protocol.CodeProfileInvalid},
		{"profile description a list", []file{f("home/settings.toml", fixtureGlobal), f("home/agents/x.md", "---\ndescription: [d]\n---\n")}, nil, protocol.CodeProfileInvalid},
		{"profile bad name", []file{f("home/settings.toml", fixtureGlobal), f("home/agents/x.md", "---\nname: a b\ndescription: d\n---\n")}, nil, protocol.CodeProfileInvalid},
		{"profile duplicate name in dir", []file{f("home/settings.toml", fixtureGlobal), f("home/agents/a.md", "---\nname: z\ndescription: d\n---\n"), f("home/agents/b.md", "---\nname: z\ndescription: d\n---\n")}, nil, protocol.CodeProfileInvalid},
		{"selected agent missing", []file{f("home/settings.toml", fixtureGlobal+"agent = \"boss\"\n")}, nil, protocol.CodeProfileInvalid},
		{"selected agent is subagent", []file{f("home/settings.toml", fixtureGlobal+"agent = \"helper\"\n"), f("home/agents/helper.md", goodProfile)}, nil, protocol.CodeProfileInvalid},
		{"selected agent disabled", []file{f("home/settings.toml", fixtureGlobal+"agent = \"boss\"\n[agents]\ndisabled = [\"boss\"]\n"), f("home/agents/boss.md", "---\ndescription: d\nmode: primary\n---\n")}, nil, protocol.CodeProfileInvalid},
		{"missing listed instruction", []file{f("home/settings.toml", fixtureGlobal+"instructions = [\"nope.md\"]\n")}, nil, protocol.CodeConfigurationInvalid},
		{"instructions not array", []file{f("home/settings.toml", fixtureGlobal+"instructions = \"a.md\"\n")}, nil, protocol.CodeConfigurationInvalid},
		{"skill broken front matter is skipped", []file{f("home/settings.toml", fixtureGlobal), f("home/skills/s/SKILL.md", "---\ndescription: x\n")}, nil, ""},
		{"skill bad name is skipped", []file{f("home/settings.toml", fixtureGlobal), f("home/skills/a b/SKILL.md", "x")}, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for _, fl := range tc.files {
				w.write(t, fl.path, fl.text, fl.mode)
			}
			for k, v := range tc.vars {
				w.vars[k] = v
			}
			snap, code := w.load(t)
			if code != tc.want {
				t.Fatalf("Load = %q; want %q (logs %q)", code, tc.want, w.logs)
			}
			if snap == nil || snap.ContextID == "" {
				t.Fatalf("Load returned no partial snapshot with a context id")
			}
			if code == "" && snap.Model == "" {
				t.Errorf("ready without a model")
			}
			if code != "" && snap.Credential.Kind != CredentialNone {
				t.Errorf("failed load kept a credential")
			}
		})
	}
}

func TestLoadEnvironmentCodes(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		name string
		env  func(Env) Env
		ctx  func() context.Context
		want protocol.Code
	}{
		{"relative MC_HOME", func(e Env) Env { e.MCHome = "rel/home"; return e }, nil, protocol.CodeConfigurationInvalid},
		{"no MC_HOME nor HOME", func(e Env) Env { e.MCHome, e.Home = "", ""; return e }, nil, protocol.CodeConfigurationInvalid},
		{"relative cwd", func(e Env) Env { e.Cwd = "work"; return e }, nil, protocol.CodeStartupFailed},
		{"missing cwd", func(e Env) Env { e.Cwd = filepath.Join(w.root, "gone"); return e }, nil, protocol.CodeStartupFailed},
		{"MC_HOME under a file", func(e Env) Env {
			w.write(t, "plain", "x", 0o644)
			e.MCHome = filepath.Join(w.root, "plain", "home")
			return e
		}, nil, protocol.CodeStartupFailed},
		{"cancelled", func(e Env) Env { return e }, func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, protocol.CodeStartupCancelled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.ctx != nil {
				ctx = tc.ctx()
			}
			if _, code := Load(ctx, tc.env(w.env())); code != tc.want {
				t.Fatalf("Load = %q; want %q", code, tc.want)
			}
		})
	}
}

func TestLoadDefaultHomeAndDirectories(t *testing.T) {
	w := newWorld(t)
	env := w.env()
	env.MCHome = ""
	snap, code := Load(context.Background(), env)
	if code != protocol.CodeProviderUnavailable {
		t.Fatalf("Load = %q; want provider_unavailable", code)
	}
	want, _ := canonical(filepath.Join(w.root, ".magi-code"))
	if snap.Home != want || snap.SessionsDir != filepath.Join(want, "sessions") {
		t.Fatalf("Home, SessionsDir = %q, %q; want %q and its sessions", snap.Home, snap.SessionsDir, want)
	}
	for _, d := range []string{snap.Home, snap.SessionsDir} {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, %v; want 0700", d, st.Mode().Perm(), err)
		}
	}
}

func TestPrecedence(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", `provider = "fixture"
model = "global-model"
thinking = "low"
[tools]
approval = "auto"
[skills]
disabled = ["a"]
[mcp_servers.g]
command = "/bin/g"
env = {TOKEN = "sk-abcdefghijklmnopqrstuvwxyz"}
`, 0o644)
	w.write(t, "cwd/.magi-code/settings.toml", `model = "project-model"
[skills]
disabled = ["b"]
`, 0o644)
	snap, code := w.load(t)
	if code != "" {
		t.Fatalf("Load = %q (logs %q)", code, w.logs)
	}
	if snap.Provider != "fixture" || snap.Model != "project-model" || snap.Thinking != "low" {
		t.Errorf("selection = %q %q %q; want fixture project-model low", snap.Provider, snap.Model, snap.Thinking)
	}
	if snap.Settings.Tools.Approval != "auto" || snap.Settings.Tools.CodeMode.Approval != "ask" {
		t.Errorf("approval = %q, code mode %q; want auto (global), ask (default)", snap.Settings.Tools.Approval, snap.Settings.Tools.CodeMode.Approval)
	}
	if !slices.Equal(snap.Settings.Skills.Disabled, []string{"b"}) {
		t.Errorf("skills.disabled = %q; want the project's list (lists replace)", snap.Settings.Skills.Disabled)
	}

	d, err := Describe(w.env())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"model":                        {`"project-model"`, SourceProject},
		"provider":                     {`"fixture"`, SourceGlobal},
		"tools.approval":               {`"auto"`, SourceGlobal},
		"tools.code_mode.approval":     {`"ask"`, SourceDefault},
		"providers.openai.api_key_env": {`"OPENAI_API_KEY"`, SourceDefault},
		"mcp_servers.g.env.TOKEN":      {Masked, SourceGlobal},
		"skills.disabled":              {`["b"]`, SourceProject},
	}
	got := map[string][2]string{}
	for _, v := range d.Values {
		got[v.Key] = [2]string{v.Value, v.Source}
	}
	for k, wv := range want {
		if got[k] != wv {
			t.Errorf("Describe %s = %q; want %q", k, got[k], wv)
		}
	}
	text := d.Text()
	if strings.Contains(text, "sk-abc") {
		t.Errorf("Describe text leaks a secret:\n%s", text)
	}
	if d.Readiness != "" {
		t.Errorf("Describe readiness = %q; want ready", d.Readiness)
	}
}

func TestInstructionsOrder(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal+"instructions = [\"extra/global.md\", \"~/abs.md\"]\n", 0o644)
	w.write(t, "cwd/.magi-code/settings.toml", "instructions = [\"../docs/project.md\"]\n", 0o644)
	w.write(t, "home/AGENTS.md", "G", 0o644)
	w.write(t, "cwd/AGENTS.md", "P", 0o644)
	w.write(t, "home/extra/global.md", "GX", 0o644)
	w.write(t, "cwd/docs/project.md", "PX", 0o644)
	w.write(t, "abs.md", "HOME", 0o644) // Env.Home is w.root
	snap, code := w.load(t)
	if code != "" {
		t.Fatalf("Load = %q (logs %q)", code, w.logs)
	}
	var texts []string
	for _, d := range snap.Instructions {
		texts = append(texts, d.Text)
	}
	if want := []string{"G", "P", "GX", "HOME", "PX"}; !slices.Equal(texts, want) {
		t.Fatalf("instructions = %q; want %q", texts, want)
	}
}

func TestInstructionsDeduplicated(t *testing.T) {
	// cwd == MC_HOME: the one AGENTS.md appears once.
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	w.write(t, "home/AGENTS.md", "G", 0o644)
	env := w.env()
	env.Cwd = w.home
	snap, code := Load(context.Background(), env)
	if code != "" || len(snap.Instructions) != 1 {
		t.Fatalf("Load = %q, %d instructions; want ready, 1", code, len(snap.Instructions))
	}
}

func TestSkills(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal+"[skills]\ndisabled = [\"off\"]\n", 0o644)
	w.write(t, "home/skills/both/SKILL.md", "---\ndescription: global\n---\nglobal body", 0o644)
	w.write(t, "cwd/.magi-code/skills/both/SKILL.md", "---\ndescription: project\n---\nproject body", 0o644)
	w.write(t, "home/skills/only-global/SKILL.md", "no front matter", 0o644)
	w.write(t, "home/skills/off/SKILL.md", "disabled", 0o644)
	w.write(t, "home/skills/.hidden/SKILL.md", "hidden", 0o644)
	w.write(t, "home/skills/empty-dir/README.md", "no skill here", 0o644)
	w.write(t, "home/skills/stray.txt", "a file", 0o644)
	snap, code := w.load(t)
	if code != "" {
		t.Fatalf("Load = %q (logs %q)", code, w.logs)
	}
	var got []string
	for _, s := range snap.Skills {
		body, err := ReadSkill(s)
		if err != nil {
			t.Fatalf("ReadSkill(%s): %v", s.Name, err)
		}
		got = append(got, s.Name+":"+s.Source+":"+s.Description+":"+body)
	}
	want := []string{"both:project:project:project body", "only-global:global::no front matter"}
	if !slices.Equal(got, want) {
		t.Fatalf("skills = %q; want %q", got, want)
	}
}

func TestProfiles(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal+"agent = \"lead\"\n[agents]\ndisabled = [\"lazy\"]\n", 0o644)
	w.write(t, "home/agents/lead.md", "---\ndescription: leads\nmode: primary\nmodel: lead-model\n---\nLead.", 0o644)
	w.write(t, "home/agents/helper.md", "---\ndescription: global helper\n---\n", 0o644)
	w.write(t, "cwd/.magi-code/agents/helper.md", "---\ndescription: project helper\ntools:\n  - read_file\n  - grep\n---\nHelp.", 0o644)
	w.write(t, "home/agents/lazy.md", "---\ndescription: disabled\n---\n", 0o644)
	w.write(t, "home/agents/named.md", "---\nname: 'reviewer'\ndescription: \"reviews, carefully\"\ntools: Read, Grep\n---\n", 0o644)
	w.write(t, "home/agents/notes.txt", "ignored", 0o644)
	snap, code := w.load(t)
	if code != "" {
		t.Fatalf("Load = %q (logs %q)", code, w.logs)
	}
	if snap.Agent == nil || snap.Agent.Name != "lead" || snap.Agent.Prompt != "Lead." {
		t.Fatalf("Agent = %+v; want lead", snap.Agent)
	}
	if snap.Model != "lead-model" {
		t.Errorf("Model = %q; want the primary agent's model", snap.Model)
	}
	var got []string
	for _, p := range snap.Subagents {
		got = append(got, p.Name+":"+p.Source+":"+p.Description+":"+strings.Join(p.Tools, ","))
	}
	want := []string{"helper:project:project helper:read_file,grep", "reviewer:global:reviews, carefully:Read,Grep"}
	if !slices.Equal(got, want) {
		t.Fatalf("subagents = %q; want %q", got, want)
	}
}

func TestRetention(t *testing.T) {
	for _, tc := range []struct {
		settings string
		want     int
	}{
		{"", 30},
		{"session_retention_days = 0\n", 0},
		{"session_retention_days = 7\n", 7},
	} {
		root := t.TempDir()
		home, cwd := filepath.Join(root, "home"), filepath.Join(root, "work")
		for _, d := range []string{home, cwd} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte(tc.settings), 0o600); err != nil {
			t.Fatal(err)
		}
		dir, days, err := Retention(Env{MCHome: home, Cwd: cwd})
		if err != nil || days != tc.want || filepath.Base(dir) != "sessions" {
			t.Fatalf("Retention(%q) = %q, %d, %v; want .../sessions, %d", tc.settings, dir, days, err, tc.want)
		}
	}
}

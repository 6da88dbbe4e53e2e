package config

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/v2"
	"github.com/magi-code/magi-code/protocol"
)

// SchemaVersion is the settings schema this build reads. Older files are
// migrated (see migrate.go); newer ones are configuration_invalid.
const SchemaVersion = 2

// Settings is the typed effective settings: defaults, then the global file,
// then the project file (see KEYS.md for each key and the exceptions).
type Settings struct {
	SchemaVersion int                  `koanf:"schema_version"`
	Provider      string               `koanf:"provider"`
	Model         string               `koanf:"model"`
	Thinking      string               `koanf:"thinking"`
	ContextWindow int                  `koanf:"context_window"`
	Providers     Providers            `koanf:"providers"`
	Tools         Tools                `koanf:"tools"`
	Instructions  []string             `koanf:"instructions"` // absolute; global list then project list
	Skills        SkillSettings        `koanf:"skills"`
	Agent         string               `koanf:"agent"`
	Agents        AgentSettings        `koanf:"agents"`
	Hooks         []Hook               `koanf:"hooks"`
	MCPServers    map[string]MCPConfig `koanf:"mcp_servers"`
	LogLevel      string               `koanf:"log_level"` // diagnostic log: debug | info | warn | error
	// SessionRetentionDays: the interactive CLI and `magi-code sessions
	// prune` delete sessions idle longer than this; 0 disables. serve
	// never prunes. Global file only.
	SessionRetentionDays int `koanf:"session_retention_days"`
}

// Providers holds the per-provider tables.
type Providers struct {
	Fixture   FixtureSettings `koanf:"fixture"`
	OpenAI    RemoteProvider  `koanf:"openai"`
	Anthropic RemoteProvider  `koanf:"anthropic"`
	// Named holds every other [providers.NAME] table: a built-in's
	// override (ollama, lmstudio, llamacpp, openrouter) or a provider of
	// its own (named.go).
	Named map[string]RemoteProvider `koanf:",remain"`
}

// FixtureSettings configures the offline fixture provider.
type FixtureSettings struct {
	Script string `koanf:"script"` // absolute after loading; "" echoes
}

// RemoteProvider configures an OpenAI-compatible or Anthropic endpoint.
type RemoteProvider struct {
	// Kind is the API it speaks: KindOpenAI or KindAnthropic. Built-ins
	// have theirs; a named table must set it.
	Kind      string `koanf:"kind"`
	BaseURL   string `koanf:"base_url"`
	APIKeyEnv string `koanf:"api_key_env"`
	Model     string `koanf:"model"`
	// The OAuth token endpoint and client ID used to refresh an expired
	// OAuth credential at turn time, and the max_tokens sent with each
	// request (0: the provider's default).
	TokenURL  string `koanf:"token_url"`
	ClientID  string `koanf:"client_id"`
	MaxTokens int    `koanf:"max_tokens"`
	// WireAPI is the OpenAI API spoken: "chat" (Chat Completions) or
	// "responses" (the Responses API); "" picks responses for OpenAI's
	// own endpoint (no base_url) and chat for any other. The Anthropic
	// provider has no choice: only "" is valid there.
	WireAPI string `koanf:"wire_api"`
	// Headers are sent with every request, values as written; EnvHeaders
	// maps a header name to the variable holding its value, read once at
	// startup. Global file only (named.go checks the names).
	Headers    map[string]string `koanf:"headers"`
	EnvHeaders map[string]string `koanf:"env_headers"`
}

// Tools holds the tool policy.
type Tools struct {
	Approval string `koanf:"approval"` // "ask" | "auto"
	// UnsandboxedAuto lets shell commands run without asking under
	// approval = "auto" where no OS sandbox confines them (no Landlock,
	// or [tools.sandbox] mode = "off"); without it they ask as under
	// "ask". Global file only, or a project may repeat the global true.
	UnsandboxedAuto bool `koanf:"unsandboxed_auto"`
	// ReadRoots are directories outside the workspace that read_file,
	// grep and list_dir read without asking, under ask and auto alike
	// (elsewhere outside the workspace they ask under ask and are refused
	// under auto). Absolute after loading. Global file only.
	ReadRoots   []string    `koanf:"read_roots"`
	Disabled    []string    `koanf:"disabled"` // tools not offered directly (Code Mode has its own allow list)
	CodeMode    CodeMode    `koanf:"code_mode"`
	Protections Protections `koanf:"protections"`
	Sandbox     Sandbox     `koanf:"sandbox"`
}

// Sandbox configures the OS sandbox of commands run without asking (the
// shell tool and hooks under approval = "auto"; docs/configuration.md,
// [tools.sandbox]). A project file may tighten it, never relax it.
type Sandbox struct {
	Mode          string   `koanf:"mode"`           // "workspace-write" | "off"
	WritableRoots []string `koanf:"writable_roots"` // absolute after loading
	Network       bool     `koanf:"network"`        // sockets allowed to every command, unasked
}

// Protections relax the built-in tools' guard rails. Only the global file
// may set them: a project file (which the agent itself may write) setting
// [tools.protections] is configuration_invalid.
type Protections struct {
	AllowOutsideCwd       bool `koanf:"allow_outside_cwd"`
	AllowGitInternals     bool `koanf:"allow_git_internals"`
	AllowCredentialFiles  bool `koanf:"allow_credential_files"`
	AllowDestructiveShell bool `koanf:"allow_destructive_shell"`
	AllowProjectConfig    bool `koanf:"allow_project_config"`
}

// CodeMode configures Code Mode, the run_code tool (JavaScript that calls
// tools): whether it is offered and its own permissions, independent of the
// direct tool policy (KEYS.md, [tools.code_mode]).
type CodeMode struct {
	Enabled   bool     `koanf:"enabled"`
	Allow     []string `koanf:"allow"`
	Approval  string   `koanf:"approval"` // "ask" | "auto"
	TimeoutMs int      `koanf:"timeout_ms"`
}

// SkillSettings filters skills.
type SkillSettings struct {
	Disabled []string `koanf:"disabled"`
}

// AgentSettings filters agent profiles.
type AgentSettings struct {
	Disabled []string `koanf:"disabled"`
}

// Hook is one command run around tool calls or at turn end (KEYS.md,
// [[hooks]]); global settings only.
type Hook struct {
	Event     string `koanf:"event"` // pre_tool_use | post_tool_use | stop
	Matcher   string `koanf:"matcher"`
	Command   string `koanf:"command"`
	TimeoutMs int    `koanf:"timeout_ms"`
}

// MCPConfig is one [mcp_servers.NAME] table as written in settings.
type MCPConfig struct {
	Command string            `koanf:"command" json:"command,omitempty"`
	Args    []string          `koanf:"args" json:"args,omitempty"`
	Env     map[string]string `koanf:"env" json:"env,omitempty"`
	URL     string            `koanf:"url" json:"url,omitempty"`
	Cwd     string            `koanf:"cwd" json:"cwd,omitempty"`
	Enabled *bool             `koanf:"enabled" json:"-"`
	// HTTP servers only, global file only: request headers whose values come
	// from environment variables of the child, never from the file.
	// BearerTokenEnv names the variable sent as "Authorization: Bearer
	// VALUE"; EnvHeaders maps a header name to the variable holding its
	// value.
	BearerTokenEnv string            `koanf:"bearer_token_env" json:"bearer_token_env,omitempty"`
	EnvHeaders     map[string]string `koanf:"env_headers" json:"env_headers,omitempty"`
	// The keys of Codex's [mcp_servers] tables, with Codex's meaning
	// (KEYS.md, [mcp_servers.NAME]). BearerTokenEnvVar is bearer_token_env
	// under Codex's name (one of the two); EnvHTTPHeaders is env_headers
	// except that an unset or empty variable leaves its header out, as in
	// Codex; HTTPHeaders are sent as written. All three: HTTP servers only,
	// and the first two global file only.
	BearerTokenEnvVar string            `koanf:"bearer_token_env_var" json:"bearer_token_env_var,omitempty"`
	EnvHTTPHeaders    map[string]string `koanf:"env_http_headers" json:"env_http_headers,omitempty"`
	HTTPHeaders       map[string]string `koanf:"http_headers" json:"http_headers,omitempty"`
	// EnabledTools, when set (even to []), is the allow list of the
	// server's tools offered; DisabledTools is removed after it. Both
	// change what the model may run: part of the approved definition.
	EnabledTools  *[]string `koanf:"enabled_tools" json:"enabled_tools,omitempty"`
	DisabledTools []string  `koanf:"disabled_tools" json:"disabled_tools,omitempty"`
	// Seconds (a TOML integer or float) for the handshake and first
	// tools/list, and for each tool call; unset: the defaults below. Not
	// part of the approved definition: they bound what runs, they do not
	// change it.
	StartupTimeoutSec *float64 `koanf:"startup_timeout_sec" json:"-"`
	ToolTimeoutSec    *float64 `koanf:"tool_timeout_sec" json:"-"`
}

// Defaults applied below both files.
// Codex's defaults for an MCP server's startup_timeout_sec and
// tool_timeout_sec, also the bounds of the servers an ACP client hands
// over (which have no settings).
const (
	DefaultMCPStartupTimeout = 10 * time.Second
	DefaultMCPToolTimeout    = 60 * time.Second
)

const (
	defaultApproval        = "ask"
	defaultCodeModeTimeout = 30_000
	defaultHookTimeout     = 10_000
	maxMCPTimeoutSec       = 86_400 // bounds startup_timeout_sec and tool_timeout_sec (a day)
	defaultRetentionDays   = 30
	maxRetentionDays       = 36500 // a century: keeps the cutoff arithmetic far from overflow
	maxHookTimeout         = 600_000
	FixtureModel           = "fixture-model"
)

var defaults = map[string]any{
	"schema_version":         int64(SchemaVersion),
	"session_retention_days": int64(defaultRetentionDays),
	"tools": map[string]any{
		"approval": defaultApproval,
		"code_mode": map[string]any{
			"approval":   defaultApproval,
			"timeout_ms": int64(defaultCodeModeTimeout),
		},
		"sandbox": map[string]any{
			"mode":    "workspace-write",
			"network": false,
		},
	},
}

// envGrammar is an environment variable name. Patterns compile on first
// use: every start of the binary runs package initialization.
var envGrammar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// mapProvider feeds an already parsed and migrated map to koanf.
type mapProvider map[string]any

func (m mapProvider) ReadBytes() ([]byte, error)    { return nil, errors.New("mapProvider: no bytes") }
func (m mapProvider) Read() (map[string]any, error) { return deepCopy(m), nil }

// merge layers defaults, the global map and the project map with koanf and
// decodes them strictly: wrong types and unknown keys are errors.
func merge(global, project map[string]any) (*Settings, error) {
	if err := checkProjectGrants(global, project); err != nil {
		return nil, err
	}
	k := koanf.New(".")
	for _, m := range []map[string]any{defaults, global, project} {
		if m == nil {
			continue
		}
		if err := k.Load(mapProvider(m), nil); err != nil {
			return nil, err
		}
	}
	var s Settings
	err := k.UnmarshalWithConf("", &s, koanf.UnmarshalConf{
		DecoderConfig: &mapstructure.DecoderConfig{
			TagName:          "koanf",
			ErrorUnused:      true,
			WeaklyTypedInput: false,
			DecodeHook:       strictNumbers,
		},
	})
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// checkProjectGrants refuses what only the global file may grant. A
// project file is written by whoever owns the repository, and may be written
// by the model itself: it may tighten the user's settings, never loosen
// them, never choose where the user's credential goes, and never run
// commands of its own. Like MCP approvals (docs/configuration.md:
// only the global file grants them), these keys are global-only:
//   - [tools.protections] (any key);
//   - [providers.*] kind, base_url, api_key_env, token_url, client_id,
//     headers, env_headers: the endpoint, how the user's key is sent and
//     where it comes from;
//   - [[hooks]]: commands run without approval;
//   - [mcp_servers.*] bearer_token_env, env_headers and Codex's
//     bearer_token_env_var, env_http_headers: which of the user's
//     variables is sent to which server;
//   - session_retention_days: pruning deletes sessions of every workspace;
//   - log_level: at debug the log records prompts and replies;
//   - [tools] approval and [tools.code_mode] approval may only be "ask"
//     unless the global side already says "auto";
//   - [tools] unsandboxed_auto = true unless the global side says true;
//   - [tools] read_roots (each one opens a directory to unasked reads);
//   - [tools.sandbox]: mode = "off" unless the global side already says
//     "off", network = true unless the global side says true, and any
//     writable_roots (each one opens a directory to unasked commands).
func checkProjectGrants(global, project map[string]any) error {
	tools, _ := project["tools"].(map[string]any)
	if _, ok := tools["protections"]; ok {
		return errors.New("tools.protections: only the global settings may relax protections")
	}
	if _, ok := project["hooks"]; ok {
		return errors.New("hooks: only the global settings may define hooks")
	}
	if servers, ok := project["mcp_servers"].(map[string]any); ok {
		for name, v := range servers {
			m, _ := v.(map[string]any)
			for _, key := range []string{"bearer_token_env", "env_headers", "bearer_token_env_var", "env_http_headers"} {
				if _, ok := m[key]; ok {
					return fmt.Errorf("mcp_servers.%s.%s: only the global settings may choose an MCP server credential", name, key)
				}
			}
		}
	}
	if _, ok := project["log_level"]; ok {
		return errors.New("log_level: only the global settings may choose what the diagnostic log records")
	}
	if _, ok := project["session_retention_days"]; ok {
		return errors.New("session_retention_days: only the global settings may choose when sessions are deleted")
	}
	if providers, ok := project["providers"].(map[string]any); ok {
		for name, v := range providers {
			p, _ := v.(map[string]any)
			for _, key := range []string{"kind", "base_url", "api_key_env", "token_url", "client_id", "headers", "env_headers"} {
				if _, ok := p[key]; ok {
					return fmt.Errorf("providers.%s.%s: only the global settings may choose a provider endpoint or credential", name, key)
				}
			}
		}
	}
	gTools, _ := global["tools"].(map[string]any)
	gCode, _ := gTools["code_mode"].(map[string]any)
	pCode, _ := tools["code_mode"].(map[string]any)
	for _, c := range []struct {
		key             string
		project, global any
	}{
		{"tools.approval", tools["approval"], gTools["approval"]},
		{"tools.code_mode.approval", pCode["approval"], gCode["approval"]},
	} {
		if c.project == "auto" && c.global != "auto" {
			return fmt.Errorf("%s: a project file may not relax approval", c.key)
		}
	}
	if u, ok := tools["unsandboxed_auto"]; ok && u != false && gTools["unsandboxed_auto"] != true {
		return errors.New("tools.unsandboxed_auto: a project file may not relax approval")
	}
	if _, ok := tools["read_roots"]; ok {
		return errors.New("tools.read_roots: only the global settings may open directories to the read tools")
	}
	return checkProjectSandbox(gTools, tools)
}

// checkProjectSandbox refuses a project [tools.sandbox] that relaxes the
// global one (or the defaults): turning it off, opening the network, or
// adding writable roots.
func checkProjectSandbox(gTools, pTools map[string]any) error {
	p, _ := pTools["sandbox"].(map[string]any)
	g, _ := gTools["sandbox"].(map[string]any)
	if mode, ok := p["mode"]; ok && mode != "workspace-write" && g["mode"] != mode {
		return errors.New("tools.sandbox.mode: a project file may not relax the sandbox")
	}
	if net, ok := p["network"]; ok && net != false && g["network"] != true {
		return errors.New("tools.sandbox.network: a project file may not relax the sandbox")
	}
	if _, ok := p["writable_roots"]; ok {
		return errors.New("tools.sandbox.writable_roots: only the global settings may open directories to the sandbox")
	}
	return nil
}

// strictNumbers refuses what mapstructure would otherwise convert silently:
// a float (1.5) into an integer field.
func strictNumbers(from, to reflect.Type, data any) (any, error) {
	if (from.Kind() == reflect.Float32 || from.Kind() == reflect.Float64) && to.Kind() >= reflect.Int && to.Kind() <= reflect.Uint64 {
		return nil, errors.New("float where an integer is required")
	}
	return data, nil
}

// ValidThinking reports whether level is a thinking level of settings:
// "" (the provider's default), off, minimal, low, medium or high.
func ValidThinking(level string) bool {
	switch level {
	case "", "off", "minimal", "low", "medium", "high":
		return true
	}
	return false
}

// validate checks values the types alone cannot: enums, ranges, grammars.
// The error names the key, never the value.
func (s *Settings) validate() error {
	if s.SchemaVersion != SchemaVersion {
		return fmt.Errorf("schema_version %d not supported", s.SchemaVersion)
	}
	for _, check := range []func() error{s.validateSelection, s.validateProviders, s.validateTools, s.validateNames, s.validateHooks, s.validateMCPServers} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateSelection checks provider, thinking and context_window.
func (s *Settings) validateSelection() error {
	// docs/protocol.md, initialize: an unknown provider is configuration_invalid.
	if _, remote := s.Remote(s.Provider); s.Provider != "" && s.Provider != FixtureProvider && !remote {
		return errors.New("provider: unknown provider")
	}
	if !ValidThinking(s.Thinking) {
		return errors.New("thinking: not one of off|minimal|low|medium|high")
	}
	if s.ContextWindow < 0 {
		return errors.New("context_window: negative")
	}
	if !slices.Contains([]string{"", "debug", "info", "warn", "error"}, s.LogLevel) {
		return errors.New("log_level: not one of debug|info|warn|error")
	}
	if s.SessionRetentionDays < 0 || s.SessionRetentionDays > maxRetentionDays {
		return errors.New("session_retention_days: out of range")
	}
	return nil
}

// validateProviders checks every remote provider table, overlaid on its
// built-in: kind, endpoints, credential sources, headers and bounds.
func (s *Settings) validateProviders() error {
	for name := range s.Providers.tables() {
		p, _ := s.Remote(name)
		_, builtin := builtinProviders[name]
		if err := validateRemote(name, p, builtin); err != nil {
			return err
		}
	}
	return nil
}

// httpURL reports whether s is an absolute http or https URL with a host.
func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// validateTools checks the approval modes and the Code Mode timeout.
func (s *Settings) validateTools() error {
	for key, v := range map[string]string{"tools.approval": s.Tools.Approval, "tools.code_mode.approval": s.Tools.CodeMode.Approval} {
		if v != "ask" && v != "auto" {
			return fmt.Errorf("%s: not ask|auto", key)
		}
	}
	if s.Tools.CodeMode.TimeoutMs <= 0 || s.Tools.CodeMode.TimeoutMs > maxHookTimeout {
		return errors.New("tools.code_mode.timeout_ms: out of range")
	}
	if m := s.Tools.Sandbox.Mode; m != "workspace-write" && m != "off" {
		return errors.New("tools.sandbox.mode: not workspace-write|off")
	}
	for _, r := range s.Tools.ReadRoots {
		if !filepath.IsAbs(r) {
			return errors.New("tools.read_roots: not an absolute directory")
		}
	}
	for _, r := range s.Tools.Sandbox.WritableRoots {
		if !filepath.IsAbs(r) || filepath.Clean(r) == "/" {
			return errors.New("tools.sandbox.writable_roots: not an absolute directory below /")
		}
	}
	return nil
}

// validateNames checks the skill, profile and agent names against the ID
// grammar.
func (s *Settings) validateNames() error {
	for _, list := range [][]string{s.Skills.Disabled, s.Agents.Disabled} {
		for _, n := range list {
			if !protocol.ValidID(n) {
				return errors.New("disabled: invalid name")
			}
		}
	}
	if s.Agent != "" && !protocol.ValidID(s.Agent) {
		return errors.New("agent: invalid name")
	}
	return nil
}

// validateHooks checks every [[hooks]] entry and fills in the default
// timeout.
func (s *Settings) validateHooks() error {
	for i := range s.Hooks {
		h := &s.Hooks[i]
		switch h.Event {
		case "pre_tool_use", "post_tool_use", "stop":
		default:
			return fmt.Errorf("hooks[%d].event: not pre_tool_use|post_tool_use|stop", i)
		}
		if h.Command == "" {
			return fmt.Errorf("hooks[%d].command: empty", i)
		}
		// The rule of runner/hooks: "" or "*" match every tool, anything
		// else is an RE2 regexp matched against the whole tool name.
		if m := h.Matcher; m != "" && m != "*" {
			if _, err := regexp.Compile("^(?:" + m + ")$"); err != nil {
				return fmt.Errorf("hooks[%d].matcher: invalid pattern", i)
			}
		}
		if h.TimeoutMs == 0 {
			h.TimeoutMs = defaultHookTimeout
		}
		if h.TimeoutMs < 0 || h.TimeoutMs > maxHookTimeout {
			return fmt.Errorf("hooks[%d].timeout_ms: out of range", i)
		}
	}
	return nil
}

// validateMCPServers checks every [mcp_servers.NAME] table.
func (s *Settings) validateMCPServers() error {
	for name, m := range s.MCPServers {
		if !protocol.ValidSessionID(name) {
			return errors.New("mcp_servers: invalid server name")
		}
		if (m.Command == "") == (m.URL == "") {
			return errors.New("mcp_servers: exactly one of command or url is required")
		}
		if m.URL != "" {
			if !httpURL(m.URL) {
				return errors.New("mcp_servers: url is not an http(s) URL")
			}
			if len(m.Args) > 0 || len(m.Env) > 0 || m.Cwd != "" {
				return errors.New("mcp_servers: args, env and cwd apply to command servers only")
			}
		} else if m.BearerTokenEnv != "" || m.BearerTokenEnvVar != "" || len(m.EnvHeaders) > 0 || len(m.EnvHTTPHeaders) > 0 || len(m.HTTPHeaders) > 0 {
			return errors.New("mcp_servers: bearer_token_env(_var), env_headers, env_http_headers and http_headers apply to url servers only")
		}
		if err := checkHeaders(m); err != nil {
			return err
		}
		if err := checkToolLists(m); err != nil {
			return err
		}
		for _, t := range []*float64{m.StartupTimeoutSec, m.ToolTimeoutSec} {
			// Spelled !(in range) so that NaN is refused too.
			if t != nil && !(*t > 0 && *t <= maxMCPTimeoutSec) {
				return errors.New("mcp_servers: startup_timeout_sec and tool_timeout_sec are seconds above 0, at most 86400")
			}
		}
		for k := range m.Env {
			if !envGrammar().MatchString(k) {
				return errors.New("mcp_servers: invalid env variable name")
			}
		}
	}
	return nil
}

// headerName is an HTTP field name (RFC 9110 token).
var headerName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$") })

// transportHeaders are set by the MCP HTTP transport itself; a setting may
// not replace them.
var transportHeaders = []string{"host", "content-length", "content-type", "transfer-encoding", "connection",
	"accept", "mcp-session-id", "mcp-protocol-version", "last-event-id"}

// checkHeaders checks the headers of a server: variable names, header
// names (HTTP tokens, not one the transport sets), values of http_headers
// (no control characters), and every header from one source only
// (http_headers, env_headers, env_http_headers, or Authorization from
// bearer_token_env or its Codex spelling, of which one at most).
func checkHeaders(m MCPConfig) error {
	if m.BearerTokenEnv != "" && m.BearerTokenEnvVar != "" {
		return errors.New("mcp_servers: bearer_token_env and bearer_token_env_var both set")
	}
	bearer := cmp.Or(m.BearerTokenEnv, m.BearerTokenEnvVar)
	if bearer != "" && !envGrammar().MatchString(bearer) {
		return errors.New("mcp_servers: bearer_token_env is not an environment variable name")
	}
	seen := map[string]bool{}
	if bearer != "" {
		seen["authorization"] = true
	}
	for _, h := range []struct {
		key     string
		fromEnv bool
		table   map[string]string
	}{{"env_headers", true, m.EnvHeaders}, {"env_http_headers", true, m.EnvHTTPHeaders}, {"http_headers", false, m.HTTPHeaders}} {
		for name, v := range h.table {
			lower := strings.ToLower(name)
			if !headerName().MatchString(name) || slices.Contains(transportHeaders, lower) {
				return fmt.Errorf("mcp_servers: %s: invalid or reserved header name", h.key)
			}
			if seen[lower] {
				return fmt.Errorf("mcp_servers: %s: a header set twice (bearer_token_env, env_headers, env_http_headers, http_headers)", h.key)
			}
			seen[lower] = true
			if h.fromEnv && !envGrammar().MatchString(v) {
				return fmt.Errorf("mcp_servers: %s: value is not an environment variable name", h.key)
			}
			if !h.fromEnv && !validHeaderValue(v) {
				return fmt.Errorf("mcp_servers: %s: value holds a control character", h.key)
			}
		}
	}
	return nil
}

// checkToolLists checks enabled_tools and disabled_tools: tool names as a
// server lists them, so any non-empty string without control characters.
func checkToolLists(m MCPConfig) error {
	var enabled []string
	if m.EnabledTools != nil {
		enabled = *m.EnabledTools
	}
	for _, n := range slices.Concat(enabled, m.DisabledTools) {
		if n == "" || !validHeaderValue(n) {
			return errors.New("mcp_servers: enabled_tools and disabled_tools hold tool names")
		}
	}
	return nil
}

// deepCopy copies the maps and slices of a parsed TOML tree.
func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return deepCopy(t)
	case []any:
		c := make([]any, len(t))
		for i := range t {
			c[i] = copyValue(t[i])
		}
		return c
	default:
		return v
	}
}

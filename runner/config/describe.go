package config

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/knadh/koanf/maps"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner/sandbox"
)

// Value is one effective setting for `magi-code config show`.
type Value struct {
	Key    string // flattened: "providers.openai.base_url", "instructions[1]"
	Value  string // TOML-like rendering; secrets replaced by Masked
	Source string // default | global | project
}

// Masked replaces secret values in Describe's output.
const Masked = "********"

// Description is what `magi-code config show` prints.
type Description struct {
	Home, Cwd string
	Values    []Value     // sorted by key
	MCP       []MCPServer // every server, Env values masked
	// Readiness is "" when a startup with these settings would be ready,
	// else the startup code it would fail with.
	Readiness protocol.Code
	// Sandbox says what confines commands run without asking on this
	// machine, or that nothing does (docs/configuration.md,
	// [tools.sandbox]).
	Sandbox string
	// Warnings are what works but should be fixed (a global settings file
	// others may read), each naming the file and the fix.
	Warnings []string
	// Skills are the skills a start-up would offer, with their source and
	// file; Instructions the instruction files it would read, in order.
	Skills       []Skill
	Instructions []Document
	// Problems are the files a start-up would skip or refuse, and why it
	// would fail (Readiness), each naming a file and, where one is known, a
	// line.
	Problems []Problem
}

// Describe loads the effective settings for env.Cwd without side effects (no
// directory creation, no migration write-back) and reports each value with
// its source, secrets masked, plus the MCP servers and readiness. Errors are
// for a person at a terminal and may name paths.
func Describe(env Env) (Description, error) {
	var d Description
	st, err := loadSettings(&env, false)
	if err != nil {
		d.Readiness = protocol.CodeConfigurationInvalid
		return d, fmt.Errorf("settings: %w", err)
	}
	d.Home, d.Cwd, d.Warnings = st.home, st.cwd, st.warnings
	snap := &Snapshot{}
	d.Readiness = finish(context.Background(), &env, snap, st)
	d.Skills, d.Problems = snap.Skills, snap.Problems
	for _, doc := range snap.Instructions {
		d.Instructions = append(d.Instructions, Document{Path: displayPath(doc.Path, env.Home), Source: doc.Source})
	}
	for i := range d.Skills {
		d.Skills[i].Path = displayPath(d.Skills[i].Path, env.Home)
	}
	d.Sandbox = sandbox.ProbeWithMounts().Text(st.settings.Tools.Sandbox.Mode, st.settings.Tools.Sandbox.Network)
	for _, m := range st.servers {
		d.MCP = append(d.MCP, masked(m))
	}

	flatDefault, _ := maps.Flatten(defaults, nil, ".")
	flatGlobal, _ := maps.Flatten(st.global.raw, nil, ".")
	flatProject, _ := maps.Flatten(st.project.raw, nil, ".")
	source := func(key string) string {
		switch {
		case has(flatProject, key):
			return SourceProject
		case has(flatGlobal, key):
			return SourceGlobal
		}
		return SourceDefault
	}
	keys := map[string]any{}
	for _, m := range []map[string]any{flatDefault, flatGlobal, flatProject} {
		for k, v := range m {
			keys[k] = v // later layers override
		}
	}
	// Derived values that no file spelled out: the model, and the
	// endpoint and key variable of openai, anthropic and the selected
	// provider (with its kind when it is another one).
	s := st.settings
	derived := map[string]string{"model": s.selectModel()}
	for _, name := range []string{"openai", "anthropic", s.Provider} {
		p, ok := s.Remote(name)
		if !ok {
			continue
		}
		derived["providers."+name+".base_url"] = p.BaseURL
		derived["providers."+name+".api_key_env"] = p.APIKeyEnv
		if name != "openai" && name != "anthropic" {
			derived["providers."+name+".kind"] = p.Kind
		}
	}
	for k, v := range derived {
		if _, ok := keys[k]; !ok && v != "" {
			keys[k] = v
		}
	}
	for k, v := range keys {
		d.Values = append(d.Values, Value{Key: k, Value: render(k, v), Source: source(k)})
	}
	for i, p := range st.global.instructions {
		d.Values = append(d.Values, Value{Key: fmt.Sprintf("instructions[%d]", i), Value: render("", p), Source: SourceGlobal})
	}
	for i, p := range st.project.instructions {
		d.Values = append(d.Values, Value{Key: fmt.Sprintf("instructions[%d]", len(st.global.instructions)+i), Value: render("", p), Source: SourceProject})
	}
	sort.Slice(d.Values, func(i, j int) bool { return d.Values[i].Key < d.Values[j].Key })
	return d, nil
}

// ListMCP returns every MCP server of the effective settings for env.Cwd
// with its source and approval, Env values masked (`magi-code mcp list`).
func ListMCP(env Env) ([]MCPServer, error) {
	st, err := loadSettings(&env, false)
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	out := make([]MCPServer, 0, len(st.servers))
	for _, m := range st.servers {
		out = append(out, masked(m))
	}
	return out, nil
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// masked copies m with every env value replaced by Masked.
func masked(m MCPServer) MCPServer {
	if len(m.Env) > 0 {
		env := make(map[string]string, len(m.Env))
		for k := range m.Env {
			env[k] = Masked
		}
		m.Env = env
	}
	if len(m.HTTPHeaders) > 0 {
		headers := make(map[string]string, len(m.HTTPHeaders))
		for k := range m.HTTPHeaders {
			headers[k] = Masked
		}
		m.HTTPHeaders = headers
	}
	m.Args = maskList(m.Args)
	m.Headers = nil // values are secrets; EnvHeaders names only variables
	return m
}

func maskList(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		if redact.Contains(s) {
			s = Masked
		}
		out[i] = s
	}
	return out
}

// render formats a value; the values of an MCP server's env and
// http_headers tables, provider header values and anything secret-like are
// masked.
func render(key string, v any) string {
	if strings.HasPrefix(key, "mcp_servers.") && (strings.Contains(key, ".env.") || strings.Contains(key, ".http_headers.")) ||
		strings.HasPrefix(key, "providers.") && strings.Contains(key, ".headers.") {
		return Masked
	}
	var out string
	switch t := v.(type) {
	case string:
		out = fmt.Sprintf("%q", t)
	default:
		b, err := json.Marshal(t)
		if err != nil {
			out = fmt.Sprint(t)
		} else {
			out = string(b)
		}
	}
	if redact.Contains(out) {
		return Masked
	}
	return out
}

// Text renders d for a terminal: one "key = value  # source" line per value,
// then the MCP servers and the readiness.
func (d Description) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# MC_HOME %s\n# cwd %s\n", d.Home, d.Cwd)
	for _, v := range d.Values {
		fmt.Fprintf(&b, "%s = %s  # %s\n", v.Key, v.Value, v.Source)
	}
	b.WriteString(MCPText(d.MCP))
	for _, doc := range d.Instructions {
		fmt.Fprintf(&b, "instructions %s  source=%s\n", doc.Path, doc.Source)
	}
	for _, s := range d.Skills {
		fmt.Fprintf(&b, "skill %s  source=%s  %s\n", s.Name, s.Source, s.Path)
	}
	for _, p := range d.Problems {
		fmt.Fprintf(&b, "# problem: %s\n", p)
	}
	if d.Sandbox != "" {
		fmt.Fprintf(&b, "# sandbox: %s\n", d.Sandbox)
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, "# warning: %s\n", w)
	}
	if d.Readiness == "" {
		b.WriteString("# readiness: ready\n")
	} else {
		fmt.Fprintf(&b, "# readiness: %s\n", d.Readiness)
	}
	return b.String()
}

// MCPText renders a server listing, one line per server.
func MCPText(list []MCPServer) string {
	var b strings.Builder
	for _, m := range list {
		target := m.URL
		if target == "" {
			target = strings.Join(append([]string{m.Command}, m.Args...), " ")
		}
		fmt.Fprintf(&b, "mcp %s  enabled=%t approved=%t source=%s  %s\n", m.Name, m.Enabled, m.Approved, m.Source, target)
		if m.Changed != "" {
			fmt.Fprintf(&b, "  not approved: %s; run `magi-code mcp approve %s` again\n", m.Changed, m.Name)
		}
	}
	return b.String()
}

// BindingText says what an approval bound: each file whose contents it
// binds (or, for a symlink leading out of the writable directories, where
// it leads), and each directory it cannot bind.
func BindingText(bound Binding) string {
	var b strings.Builder
	if len(bound.Files) == 0 {
		b.WriteString("bound no file of the workspace: the approval covers the definition alone\n")
	}
	for _, f := range bound.Files {
		switch {
		case f.SHA256 == "":
			fmt.Fprintf(&b, "bound %s as a link to %s\n", f.Path, f.Target)
		case f.Target != "":
			fmt.Fprintf(&b, "bound %s (%s) sha256:%s\n", f.Path, f.Target, f.SHA256)
		default:
			fmt.Fprintf(&b, "bound %s sha256:%s\n", f.Path, f.SHA256)
		}
	}
	for _, d := range bound.Unbound {
		fmt.Fprintf(&b, "not bound: %s is a directory; what the server runs from it may change without a new approval\n", d)
	}
	return b.String()
}

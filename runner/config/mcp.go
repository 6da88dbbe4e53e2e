package config

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// MCPServer is one server of the effective settings with its approval.
type MCPServer struct {
	Name    string
	Command string // stdio server; or URL for streamable HTTP
	Args    []string
	Env     map[string]string // the server's own variables, added to the minimal environment
	URL     string
	Cwd     string // absolute; "" means the child's cwd
	Enabled bool
	// Source is global when only the global file defines the server, project
	// when the project file has a [mcp_servers.NAME] table for it.
	Source   string
	Digest   string // hex SHA-256 of the defining file and the definition
	Approved bool   // global file, or a recorded approval of Digest whose files are unchanged
	// Changed, for a project server with a recorded approval of Digest,
	// says in words which file of the workspace it names differs from what
	// the approval bound (contents, presence, where its links lead:
	// binder.bind), or why the files could not be checked: the server is
	// then not approved. "" otherwise. It names a path: for people only.
	Changed string
	// BearerTokenEnv and EnvHeaders name the variables of an HTTP server's
	// headers (settings); Headers holds their values, resolved by Load only
	// for the servers it admits. Headers are secrets: never printed, logged
	// or passed to anything but that server.
	BearerTokenEnv string
	EnvHeaders     map[string]string
	Headers        map[string]string
	// EnvHTTPHeaders are Codex's env_http_headers: as EnvHeaders, but a
	// header whose variable is unset or empty is left out. HTTPHeaders are
	// sent as written (values may be secrets: masked in listings).
	EnvHTTPHeaders map[string]string
	HTTPHeaders    map[string]string
	// EnabledTools (nil: every tool) and DisabledTools filter the tools
	// offered, in that order (Codex's enabled_tools, disabled_tools).
	EnabledTools  []string
	DisabledTools []string
	// StartupTimeout bounds the handshake and the first tools/list,
	// ToolTimeout each tool call (startup_timeout_sec, tool_timeout_sec,
	// or their defaults).
	StartupTimeout, ToolTimeout time.Duration
}

// timeout is the duration of a setting in seconds, or def when unset.
func timeout(sec *float64, def time.Duration) time.Duration {
	if sec == nil {
		return def
	}
	return time.Duration(*sec * float64(time.Second))
}

// digest is the approval identity: the canonical path of the defining file
// and the canonical JSON of the definition (enabled excluded; map keys
// sorted by encoding/json).
func digest(definingFile string, def MCPConfig) string {
	body, _ := json.Marshal(def) // strings, slices and a string map: cannot fail
	h := sha256.New()
	h.Write([]byte(definingFile))
	h.Write([]byte{0})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// approvalStore is $MC_HOME/mcp-approvals.json (mode 0600).
type approvalStore struct {
	Version int                         `json:"version"`
	Servers map[string][]approvalRecord `json:"servers"`
}

type approvalRecord struct {
	Digest     string `json:"digest"`
	ApprovedAt string `json:"approved_at"`
	// Files are the files of the workspace the definition names, with
	// their digests at approval (BoundFile); none in a record written
	// before files were bound, which therefore approves only a server
	// that names none.
	Files []BoundFile `json:"files,omitempty"`
}

const approvalsFile = "mcp-approvals.json"

// readApprovals reads the store; a missing file is an empty store.
func readApprovals(home string) (approvalStore, error) {
	st := approvalStore{Version: 1, Servers: map[string][]approvalRecord{}}
	data, err := ReadPrivate(filepath.Join(home, approvalsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil || st.Version != 1 {
		return approvalStore{Version: 1, Servers: map[string][]approvalRecord{}}, errors.New("approvals file: not a valid store")
	}
	if st.Servers == nil {
		st.Servers = map[string][]approvalRecord{}
	}
	return st, nil
}

// record is the approval of server name's definition digest, if any.
func (st approvalStore) record(name, digest string) (approvalRecord, bool) {
	for _, r := range st.Servers[name] {
		if r.Digest == digest {
			return r, true
		}
	}
	return approvalRecord{}, false
}

// servers lists the effective MCP servers sorted by name, each with its
// source, digest and approval. docs/protocol.md, initialize: "Global approval of the canonical
// definition source remains mandatory; project enabled=true cannot approve
// itself." A server the project file touches at all is project-defined,
// and its approval holds only while the files b binds are unchanged.
func servers(s *Settings, global, project *layer, store approvalStore, b binder) []MCPServer {
	out := make([]MCPServer, 0, len(s.MCPServers))
	for name, def := range s.MCPServers {
		m := MCPServer{
			Name: name, Command: def.Command, Args: def.Args, Env: def.Env, URL: def.URL, Cwd: def.Cwd,
			BearerTokenEnv: cmp.Or(def.BearerTokenEnv, def.BearerTokenEnvVar), EnvHeaders: def.EnvHeaders,
			EnvHTTPHeaders: def.EnvHTTPHeaders, HTTPHeaders: def.HTTPHeaders, DisabledTools: def.DisabledTools,
			StartupTimeout: timeout(def.StartupTimeoutSec, DefaultMCPStartupTimeout),
			ToolTimeout:    timeout(def.ToolTimeoutSec, DefaultMCPToolTimeout),
			Enabled:        def.Enabled == nil || *def.Enabled,
			Source:         SourceGlobal,
		}
		if def.EnabledTools != nil {
			m.EnabledTools = append([]string{}, *def.EnabledTools...) // [] stays non-nil: no tool
		}
		file := global.path
		if project.definesServer(name) {
			m.Source, file = SourceProject, project.path
		}
		m.Digest = digest(file, def)
		m.Approved = m.Source == SourceGlobal
		if rec, ok := store.record(name, m.Digest); ok && !m.Approved {
			m.Approved, m.Changed = approvedFiles(rec, m, b)
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// approvedFiles checks an approval record of m's definition against the
// files m names now: approved, or the first path that changed (with the
// reason when the binding failed).
func approvedFiles(rec approvalRecord, m MCPServer, b binder) (bool, string) {
	if m.Command == "" {
		return true, ""
	}
	now, err := b.bind(m.Command, m.Args, m.Env, m.Cwd)
	if err != nil {
		return false, err.Error()
	}
	if p := changedFile(rec.Files, now.Files); p != "" {
		return false, p + " changed since it was approved"
	}
	return true, ""
}

// ErrUnknownServer: Approve was asked for a server the effective settings
// do not define.
var ErrUnknownServer = errors.New("no MCP server of that name in the effective settings")

// Approve records in $MC_HOME/mcp-approvals.json the approval of server name
// as the effective settings for env.Cwd define it (docs/protocol.md, Choices: "records in the
// global storage the approval of server NAME as the effective settings for
// that cwd define it"), with the digests of the files of the workspace it
// names (binder.bind), which it returns. A server defined only by the
// global file needs no record and Approve returns a zero Binding without
// writing. It is for the terminal CLI: errors may name paths and are meant
// for a person.
func Approve(env Env, name string) (Binding, error) {
	st, err := loadSettings(&env, false)
	if err != nil {
		return Binding{}, err
	}
	var target *MCPServer
	for i := range st.servers {
		if st.servers[i].Name == name {
			target = &st.servers[i]
		}
	}
	if target == nil {
		return Binding{}, ErrUnknownServer
	}
	if target.Source == SourceGlobal {
		return Binding{}, nil
	}
	var bound Binding
	if target.Command != "" {
		if bound, err = newBinder(st.settings, st.cwd, &env).bind(target.Command, target.Args, target.Env, target.Cwd); err != nil {
			return Binding{}, fmt.Errorf("cannot bind the files it runs: %w", err)
		}
	}
	if err := os.MkdirAll(st.home, 0o700); err != nil {
		return Binding{}, err
	}
	store, err := readApprovals(st.home)
	if err != nil {
		return Binding{}, err
	}
	// One record per definition: approving it again replaces the files it
	// binds, so contents approved before are not approved any more.
	recs := slices.DeleteFunc(slices.Clone(store.Servers[name]), func(r approvalRecord) bool { return r.Digest == target.Digest })
	recs = append(recs, approvalRecord{Digest: target.Digest, ApprovedAt: env.now().UTC().Format(time.RFC3339), Files: bound.Files})
	if len(recs) > MaxApprovalsPerName {
		recs = recs[len(recs)-MaxApprovalsPerName:]
	}
	store.Servers[name] = recs
	data, err := json.MarshalIndent(store, "", "  ")
	if err != nil {
		return Binding{}, err
	}
	return bound, WriteAtomic(filepath.Join(st.home, approvalsFile), append(data, '\n'), 0o600)
}

// resolveHeaders sets m.Headers: http_headers as written, then the values
// of m's header variables from env. An unset or empty variable of
// bearer_token_env(_var) or env_headers is an error naming the variable
// (never a value); one of env_http_headers leaves its header out, as in
// Codex.
func resolveHeaders(m *MCPServer, env *Env) error {
	if m.BearerTokenEnv == "" && len(m.EnvHeaders) == 0 && len(m.EnvHTTPHeaders) == 0 && len(m.HTTPHeaders) == 0 {
		return nil
	}
	m.Headers = make(map[string]string, len(m.HTTPHeaders)+len(m.EnvHeaders)+len(m.EnvHTTPHeaders)+1)
	maps.Copy(m.Headers, m.HTTPHeaders)
	if m.BearerTokenEnv != "" {
		v := env.getenv(m.BearerTokenEnv)
		if v == "" {
			return fmt.Errorf("bearer_token_env %s is unset or empty", m.BearerTokenEnv)
		}
		m.Headers["Authorization"] = "Bearer " + v
	}
	for name, variable := range m.EnvHeaders {
		v := env.getenv(variable)
		if v == "" {
			return fmt.Errorf("env_headers %s: %s is unset or empty", name, variable)
		}
		m.Headers[name] = v
	}
	for name, variable := range m.EnvHTTPHeaders {
		if v := env.getenv(variable); strings.TrimSpace(v) != "" {
			m.Headers[name] = v
		}
	}
	return nil
}

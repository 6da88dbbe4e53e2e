package config

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/fixture"
)

// Env is everything Load takes from the process: no os.Getenv, no wall
// clock, no working directory lookups inside the package.
type Env struct {
	Home   string               // $HOME (used when MC_HOME is unset)
	MCHome string               // $MC_HOME or ""
	Cwd    string               // the child's cwd (absolute)
	Getenv func(string) string  // api_key_env lookups; nil reads nothing
	Now    func() time.Time     // credential expiry; nil is time.Now
	Logf   func(string, ...any) // details for people (may name paths); nil discards
}

func (e *Env) getenv(k string) string {
	if e.Getenv == nil || k == "" {
		return ""
	}
	return e.Getenv(k)
}

func (e *Env) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

func (e *Env) logf(format string, args ...any) {
	if e.Logf != nil {
		e.Logf(format, args...)
	}
}

// homeDir resolves MC_HOME: $MC_HOME when set, else $HOME/.magi-code. It
// must be absolute.
func (e *Env) homeDir() (string, error) {
	h := e.MCHome
	if h == "" {
		if e.Home == "" {
			return "", errors.New("neither MC_HOME nor HOME is set")
		}
		h = filepath.Join(e.Home, ".magi-code")
	}
	if !filepath.IsAbs(h) {
		return "", errors.New("MC_HOME is not an absolute path")
	}
	return filepath.Clean(h), nil
}

// LogDir is the directory of the children's diagnostic logs,
// $MC_HOME/logs.
func (e *Env) LogDir() (string, error) {
	h, err := e.homeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "logs"), nil
}

// Snapshot is the one admitted startup snapshot of a child. Changes on disk
// after Load need a restart.
type Snapshot struct {
	Home, SessionsDir, Cwd string // canonical
	// ContextID is the hex SHA-256 of the canonical cwd and the canonical
	// admitted storage roots (MC_HOME and MC_HOME/sessions).
	ContextID string
	// Provider and Model are the raw effective selection: pass them through
	// SafeName before they reach a frame.
	Provider, Model string
	Thinking        string
	Settings        Settings
	Instructions    []Document // in precedence order (see KEYS.md)
	Skills          []Skill    // sorted by name, disabled removed
	Agent           *Profile   // the selected primary agent; nil for the built-in one
	Subagents       []Profile  // enabled subagent profiles, sorted by name
	// FixtureScript is the parsed fixture script (provider fixture with
	// [providers.fixture] script; nil otherwise: the fixture echoes).
	FixtureScript *fixture.Script
	// Remote is the effective definition of the selected remote provider
	// (its built-in overlaid by its table); zero for the fixture.
	Remote RemoteProvider
	// ProviderHeaders are the headers sent with every request to the
	// provider: Remote's static headers and its env_headers resolved. They
	// may hold secrets: never log them.
	ProviderHeaders map[string]string
	// Credential is the resolved provider credential. Never log it, put it
	// on the wire, in history or in a subprocess environment.
	Credential Credential
	// NeedsLogin: the load failed with provider_unavailable because the
	// selected remote provider has no usable credential (none in its
	// api_key_env or in auth.json, or an expired one that cannot be
	// refreshed), which `magi-code login` fixes.
	NeedsLogin bool
	// MCPServers are the enabled and approved servers to start, by name.
	MCPServers []MCPServer
	// MCPUnapproved are enabled servers that lack a global approval: they
	// are not started (log them; `magi-code mcp approve NAME` fixes it).
	MCPUnapproved []MCPServer
	// Sources names the settings files that exist, in precedence order
	// (SourceGlobal, SourceProject), for the diagnostic log.
	Sources []string
	// Problems are the instruction files, skills and profiles that were
	// skipped or refused, and the reason a load failed after the settings
	// step, for people (config show, the log; never the wire).
	Problems []Problem
}

// contextID digests the canonical cwd and storage roots. A fixed domain
// prefix and NUL separators keep distinct path tuples distinct.
func contextID(cwd, home, sessions string) string {
	h := sha256.New()
	for _, s := range []string{"magi-code.context.v1", cwd, home, sessions} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// settingsState is the result of the settings step, shared by Load, Approve
// and Describe.
type settingsState struct {
	home, cwd       string
	global, project *layer
	settings        *Settings
	servers         []MCPServer
	warnings        []string // for a person: what works but should be fixed
}

// Retention returns the sessions directory ($MC_HOME/sessions) and the
// session_retention_days setting for env (0: pruning disabled). It reads
// the settings like Describe (no readiness, no directory created); errors
// are for a person and may name paths.
func Retention(env Env) (sessionsDir string, days int, err error) {
	st, err := loadSettings(&env, false)
	if err != nil {
		return "", 0, err
	}
	return filepath.Join(st.home, "sessions"), st.settings.SessionRetentionDays, nil
}

// loadSettings loads, migrates, merges and validates both settings files
// and resolves the MCP servers' approvals. home and cwd are canonicalized
// when they exist. With writeBack, a migrated global file is rewritten.
func loadSettings(env *Env, writeBack bool) (*settingsState, error) {
	home, err := env.homeDir()
	if err != nil {
		return nil, err
	}
	if c, err := canonical(home); err == nil {
		home = c
	}
	if !filepath.IsAbs(env.Cwd) {
		return nil, errors.New("cwd is not absolute")
	}
	cwd, err := canonical(env.Cwd)
	if err != nil {
		return nil, err
	}
	return loadSettingsAt(env, home, cwd, writeBack)
}

func loadSettingsAt(env *Env, home, cwd string, writeBack bool) (*settingsState, error) {
	st := &settingsState{home: home, cwd: cwd}
	var err error
	if st.global, err = loadLayer(SourceGlobal, filepath.Join(home, "settings.toml"), env.Home, env.logf); err != nil {
		return st, err
	}
	if st.project, err = loadLayer(SourceProject, filepath.Join(cwd, ".magi-code", "settings.toml"), env.Home, env.logf); err != nil {
		return st, err
	}
	if st.project.present && st.global.present && sameFile(st.project.path, st.global.path) {
		// Started where MC_HOME is the project's .magi-code (in ~, with
		// MC_HOME = ~/.magi-code, or through a link): that file is the
		// global one, read once as such; as a project's too it would be
		// refused what only the global file may say.
		st.project = &layer{source: SourceProject, raw: map[string]any{}}
	}
	if st.global.present {
		// Read all the same: refusing would stop every start-up over a
		// mode the user chose; the warning names the fix.
		if err := checkPrivate(st.global.path, st.global.perm); err != nil {
			env.logf("config: %v", err)
			st.warnings = append(st.warnings, err.Error())
		}
	}
	if writeBack && st.global.moved {
		if err := st.global.writeBack(); err != nil {
			// The migrated settings are used in memory either way.
			env.logf("config: could not rewrite migrated global settings: %v", err)
		}
	}
	// Name the first unknown or wrongly typed key and its file (never the
	// value); the strict decode below would only say that one exists.
	for _, l := range []*layer{st.global, st.project} {
		if p := checkKeys(l.raw); p != nil {
			err := p.error(displayPath(l.path, env.Home))
			env.logf("config: %v", err)
			return st, err
		}
	}
	if err := checkProjectGrants(st.global.raw, st.project.raw); err != nil {
		err = fmt.Errorf("%w (in %s)", err, displayPath(st.project.path, env.Home))
		env.logf("config: %v", err)
		return st, err
	}
	s, err := merge(st.global.raw, st.project.raw)
	if err != nil {
		env.logf("config: settings: %v", err)
		return st, errors.New("settings have wrong types or unknown keys")
	}
	s.Instructions = append(append([]string(nil), st.global.instructions...), st.project.instructions...)
	if err := s.validate(); err != nil {
		env.logf("config: settings: %v", err)
		return st, err
	}
	s.fillProviderDefaults()
	st.settings = s
	store, err := readApprovals(home)
	if err != nil {
		env.logf("config: MCP approvals ignored: %v", err)
	}
	st.servers = servers(s, st.global, st.project, store, newBinder(s, cwd, env))
	return st, nil
}

// Load performs the whole startup load once: resolve MC_HOME, create the
// runtime directories (MC_HOME and MC_HOME/sessions, mode 0700), load global
// and exact-cwd project settings with precedence, migrate older schema
// versions, compute the context identity, load instructions, skills and
// profiles, check provider readiness locally, and collect the MCP servers
// with their approval status. It makes no network request and starts
// nothing. It blocks only on the file system; ctx is checked between steps
// and its end gives startup_cancelled.
//
// On failure it returns the safe code and the part of the snapshot already
// known (paths and context after the directories; provider, model and
// settings after the settings step). It never panics on any file content.
func Load(ctx context.Context, env Env) (*Snapshot, protocol.Code) {
	snap := &Snapshot{}
	home, err := env.homeDir()
	if err != nil {
		env.logf("config: %v", err)
		return snap, protocol.CodeConfigurationInvalid
	}
	if !filepath.IsAbs(env.Cwd) {
		env.logf("config: cwd is not absolute")
		return snap, protocol.CodeStartupFailed
	}
	if ctx.Err() != nil {
		return snap, protocol.CodeStartupCancelled
	}
	sessions := filepath.Join(home, "sessions")
	for _, dir := range []string{home, sessions} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			env.logf("config: creating runtime directory: %v", err)
			return snap, protocol.CodeStartupFailed
		}
	}
	// docs/protocol.md, initialize: context identity is "captured once after normal runtime
	// directory creation", over canonical paths, so aliases agree.
	var paths [3]string
	for i, p := range []string{home, sessions, env.Cwd} {
		if paths[i], err = canonical(p); err != nil {
			env.logf("config: canonicalizing a runtime path: %v", err)
			return snap, protocol.CodeStartupFailed
		}
	}
	snap.Home, snap.SessionsDir, snap.Cwd = paths[0], paths[1], paths[2]
	snap.ContextID = contextID(snap.Cwd, snap.Home, snap.SessionsDir)

	if ctx.Err() != nil {
		return snap, protocol.CodeStartupCancelled
	}
	st, err := loadSettingsAt(&env, snap.Home, snap.Cwd, true)
	for _, l := range []*layer{st.global, st.project} {
		if l != nil && l.present {
			snap.Sources = append(snap.Sources, l.source)
		}
	}
	if err != nil {
		return snap, protocol.CodeConfigurationInvalid
	}
	return snap, finish(ctx, &env, snap, st)
}

// finish runs the steps after settings: instructions, skills, profiles,
// provider readiness and the MCP selection. It only reads.
func finish(ctx context.Context, env *Env, snap *Snapshot, st *settingsState) protocol.Code {
	s := st.settings
	snap.Settings = *s
	snap.Provider, snap.Model, snap.Thinking = s.Provider, s.selectModel(), s.Thinking

	if ctx.Err() != nil {
		return protocol.CodeStartupCancelled
	}
	l := &loader{env: env, home: st.home, cwd: st.cwd}
	defer func() { snap.Problems = l.problems }()
	var err error
	if snap.Instructions, err = l.instructions(st.global.instructions, st.project.instructions); err != nil {
		return protocol.CodeConfigurationInvalid
	}
	snap.Skills = l.skills(s.Skills.Disabled)
	profiles, err := l.profiles(s.Agents.Disabled)
	if err != nil {
		return protocol.CodeProfileInvalid
	}
	if snap.Agent, snap.Subagents, err = selectAgents(profiles, s.Agent); err != nil {
		from := st.global.path
		if _, ok := st.project.raw["agent"]; ok {
			from = st.project.path
		}
		l.problem(from, fmt.Errorf("agent %q: %w", bounded(s.Agent), err))
		return protocol.CodeProfileInvalid
	}
	if snap.Agent != nil && snap.Agent.Model != "" {
		snap.Model = snap.Agent.Model
	}

	if ctx.Err() != nil {
		return protocol.CodeStartupCancelled
	}
	cred, code := readiness(s, snap, st.home, env)
	if code != "" {
		return code
	}
	snap.Credential = cred

	if ctx.Err() != nil {
		return protocol.CodeStartupCancelled
	}
	for _, m := range st.servers {
		switch {
		case !m.Enabled:
		case m.Approved:
			if err := resolveHeaders(&m, env); err != nil {
				// The server cannot authenticate: as a server that fails to
				// start, it fails initialization.
				env.logf("config: MCP server %s: %v", m.Name, err)
				return protocol.CodeMCPUnavailable
			}
			snap.MCPServers = append(snap.MCPServers, m)
		case m.Changed != "":
			env.logf("config: MCP server %s is not approved: %s; run `magi-code mcp approve %s` again", m.Name, m.Changed, m.Name)
			snap.MCPUnapproved = append(snap.MCPUnapproved, m)
		default:
			env.logf("config: MCP server %s is not approved; run `magi-code mcp approve %s`", m.Name, m.Name)
			snap.MCPUnapproved = append(snap.MCPUnapproved, m)
		}
	}
	return ""
}

// sameFile reports whether the paths a and b name the same file.
func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

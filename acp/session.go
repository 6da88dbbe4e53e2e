package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/magi-code/magi-code/acp/jsonrpc"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
)

// session is one open ACP session: its runtime (the settings, instructions,
// skills and MCP servers of its cwd), its attachment (the store's leases,
// as session.open takes them), its options and its turn.
type session struct {
	a     *Agent
	id    string
	cwd   string
	rt    *runner.Runtime
	store *history.Store
	att   *history.Attachment

	// mu guards the fields below.
	mu     sync.Mutex
	mode   string // ModeAsk, ModeAuto or ModeReadOnly
	choice runner.Choice
	turn   *turn // the running turn, nil when idle
	// grants are the session's "allow always" answers: the exact calls
	// (tool and arguments) they were given for, kept by the runner
	// (runner.Grants), in memory only.
	grants *runner.Grants
	// titled: session_info_update went out (the session is durable).
	titled bool
	closed bool
	// introduced is closed once new, load or resume has sent the session's
	// answer and what follows it (commands, MCP notice): session/close
	// waits for it, so that nothing of the session follows close's answer.
	introduced chan struct{}
}

// Modes: the values of the mode option and of the legacy modes.
const (
	ModeAsk      = "ask"       // mutating tools ask first
	ModeAuto     = "auto"      // no tool asks (protections still do)
	ModeReadOnly = "read-only" // writes and shell are refused without asking
)

// newParams are session/new's, load's and resume's parameters.
type newParams struct {
	SessionID  string            `json:"sessionId"`
	Cwd        string            `json:"cwd"`
	MCPServers []json.RawMessage `json:"mcpServers"`
}

// reserve counts one session being opened against MaxSessions.
func (a *Agent) reserve() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || len(a.sessions)+a.opening >= MaxSessions {
		return false
	}
	a.opening++
	return true
}

// admit adds s to the open sessions, or closes it when the agent closed
// meanwhile (false).
func (a *Agent) admit(s *session) bool {
	a.mu.Lock()
	a.opening--
	closed := a.closed
	if !closed {
		a.sessions[s.id] = s
	}
	a.mu.Unlock()
	if closed {
		s.close(context.Background())
	}
	return !closed
}

func (a *Agent) unreserve() {
	a.mu.Lock()
	a.opening--
	a.mu.Unlock()
}

// validCwd reports whether cwd is an absolute path to a directory.
func validCwd(cwd string) bool {
	if !filepath.IsAbs(cwd) {
		return false
	}
	fi, err := os.Stat(cwd)
	return err == nil && fi.IsDir()
}

// runtimeFor admits the settings of cwd and builds its runtime: the same
// rules as serve's initialize, for that cwd, with the client's MCP servers.
//
// A failure for want of a credential (runner.Admitted.NeedsLogin) is
// -32000, ACP's "authentication required", so that the client offers the
// auth method (run `magi-code login`); any other failure -32603. Both keep
// the stable code in data.code.
func (a *Agent) runtimeFor(cwd string, servers []runner.MCPServer) (*runner.Runtime, *history.Store, protocol.Code, int) {
	env := a.opts.Env
	env.Cwd = cwd
	env.Logf = a.opts.Logf
	adm, code := runner.Admit(a.ctx, env)
	if code != "" {
		if code == protocol.CodeProviderUnavailable && adm.NeedsLogin() {
			return nil, nil, code, jsonrpc.CodeAuthRequired
		}
		return nil, nil, code, jsonrpc.CodeInternalError
	}
	ropts := a.opts.Runner
	ropts.ClientMCP = servers
	rt, code := runner.New(a.ctx, adm, ropts)
	if code != "" {
		return nil, nil, code, jsonrpc.CodeInternalError
	}
	return rt, history.NewStore(rt.SessionsDir(), rt.Cwd(), a.opts.Now), "", 0
}

// opened is the shared start of new, load and resume: parameters checked,
// a slot reserved, the runtime built. On false the request is answered.
func (a *Agent) opened(m jsonrpc.Message, needID bool) (newParams, *runner.Runtime, *history.Store, bool) {
	var p newParams
	var servers []runner.MCPServer
	ok := decode(m.Params, &p) && validCwd(p.Cwd) && (!needID || history.ValidSessionID(p.SessionID))
	if ok {
		servers, ok = mcpServers(p.MCPServers)
	}
	if !ok {
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
		return p, nil, nil, false
	}
	if needID && a.session(p.SessionID) != nil {
		// Already open in this process: its leases are ours already.
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeSessionBusy)
		return p, nil, nil, false
	}
	if !a.reserve() {
		a.respondError(m.ID, jsonrpc.CodeInternalError, protocol.CodeRequestLimit)
		return p, nil, nil, false
	}
	rt, store, code, jcode := a.runtimeFor(p.Cwd, servers)
	if code != "" {
		a.unreserve()
		a.respondError(m.ID, jcode, code)
		return p, nil, nil, false
	}
	return p, rt, store, true
}

func (a *Agent) newSession(id, cwd string, rt *runner.Runtime, store *history.Store, att *history.Attachment, choice runner.Choice) *session {
	mode := ModeAsk
	if rt.Approval() == runner.ApprovalAuto {
		mode = ModeAuto
	}
	return &session{a: a, id: id, cwd: cwd, rt: rt, store: store, att: att, mode: mode, choice: choice, grants: runner.NewGrants(), introduced: make(chan struct{})}
}

// sessionNew creates a session in its cwd: a lazy attachment (leases now,
// the file at the first prompt), answered with the options; then the
// available commands follow the answer.
func (a *Agent) sessionNew(m jsonrpc.Message) {
	p, rt, store, ok := a.opened(m, false)
	if !ok {
		return
	}
	id := a.opts.NewID()
	att, code := store.Create(id, rt.StartupSelection())
	if code != "" {
		a.unreserve()
		_ = rt.Close(context.Background())
		a.respondError(m.ID, jsonrpc.CodeInternalError, code)
		return
	}
	s := a.newSession(id, p.Cwd, rt, store, att, rt.StartupChoice())
	defer close(s.introduced)
	if !a.admit(s) {
		return
	}
	a.opts.Log.Info("acp session new", "session_id", id)
	// The answer goes on the ordered edge: the session's updates that
	// follow (the commands) must not overtake it.
	_ = a.out(jsonrpc.AppendResult(nil, m.ID, s.stateResult(true)), true)
	s.commands()
	s.mcpNotice()
}

// sessionLoad opens a stored session, replays it as updates and then
// answers; sessionResume opens it without the replay. Both follow
// session.open: the exact ID, the workspace check (cwd_mismatch), the
// leases (session_busy).
func (a *Agent) sessionLoad(m jsonrpc.Message)   { a.reopen(m, true) }
func (a *Agent) sessionResume(m jsonrpc.Message) { a.reopen(m, false) }

func (a *Agent) reopen(m jsonrpc.Message, replay bool) {
	p, rt, store, ok := a.opened(m, true)
	if !ok {
		return
	}
	att, info, code := store.Open(p.SessionID, nil)
	if code != "" {
		a.unreserve()
		_ = rt.Close(context.Background())
		jcode := jsonrpc.CodeInternalError
		switch code {
		case protocol.CodeSessionMissing:
			jcode = jsonrpc.CodeResourceNotFound
		case protocol.CodeInvalidParams, protocol.CodeCwdMismatch:
			jcode = jsonrpc.CodeInvalidParams
		}
		a.respondError(m.ID, jcode, code)
		return
	}
	_, _, choice := rt.Restore(info)
	if !info.HasSaved {
		att.SetSelection(rt.StartupSelection())
	}
	s := a.newSession(p.SessionID, p.Cwd, rt, store, att, choice)
	if validMode(info.SavedMode) {
		// The mode chosen over ACP (saveSelection).
		s.mode = info.SavedMode
	}
	s.titled = info.Durable
	defer close(s.introduced)
	a.opts.Log.Info("acp session open", "session_id", s.id, "replay", replay)
	// The replay comes before the session is open to requests: a prompt
	// (or close) for it before load's answer is session_missing, so no
	// turn's update runs into the replay.
	if replay {
		if err := s.replay(); err != nil {
			a.unreserve()
			s.close(context.Background())
			a.respondError(m.ID, jsonrpc.CodeInternalError, protocol.CodeOutputUnavailable)
			return
		}
	}
	if !a.admit(s) {
		return
	}
	// The answer follows the replayed updates on the ordered edge.
	_ = a.out(jsonrpc.AppendResult(nil, m.ID, s.stateResult(false)), true)
	s.commands()
	s.mcpNotice()
}

// sessionClose cancels the session's turn, waits for it, releases the
// leases and stops its MCP servers; nothing of the session follows the
// answer.
func (a *Agent) sessionClose(m jsonrpc.Message) {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if !decode(m.Params, &p) {
		a.respondError(m.ID, jsonrpc.CodeInvalidParams, protocol.CodeInvalidParams)
		return
	}
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	delete(a.sessions, p.SessionID)
	a.mu.Unlock()
	if s == nil {
		a.respondError(m.ID, jsonrpc.CodeResourceNotFound, protocol.CodeSessionMissing)
		return
	}
	// Behind the session's introduction (a close sent as soon as new's
	// answer arrived may be read before the commands that follow it are
	// queued), then behind the closed turn's last frame.
	<-s.introduced
	s.close(a.ctx)
	_ = a.out(jsonrpc.AppendResult(nil, m.ID, []byte(`{}`)), true)
}

// close ends the session: its turn cancelled and waited for, its leases
// released, its runtime closed. Idempotent.
func (s *session) close(ctx context.Context) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	t := s.turn
	s.mu.Unlock()
	if t != nil {
		t.cancel(runner.ErrCancelled)
		<-t.done
	}
	_ = s.att.Close()
	_ = s.rt.Close(ctx)
}

// commands sends available_commands_update: the skills and built-ins a
// prompt may start with.
func (s *session) commands() {
	_ = s.a.out(s.a.notify(s.id, commandsUpdate(s.rt.Skills())), true)
}

// stateResult is the answer of new (with the session ID), load and
// resume: the legacy modes and the config options, in sync.
func (s *session) stateResult(withID bool) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]any{
		"modes":         modeState(s.mode, s.rt.Selection().Sandbox),
		"configOptions": s.optionsLocked(),
	}
	if withID {
		out["sessionId"] = s.id
	}
	b, _ := json.Marshal(out)
	return b
}

package mission

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client/human"
)

// A backend reads the settings and credentials once, when it initializes
// (docs/protocol.md, "one admitted snapshot per child"). So that a key
// stored with /login or a model chosen with /model is used from the next
// turn, Mission Control restarts its backend (Options.Restart), initializes
// the new one and reopens the same session there.

// Reopening after a restart retries session_busy this many times, this far
// apart: the ended backend releases the session's lease during its
// cleanup, which may end a moment after it returned.
const (
	reopenTries = 10
	reopenDelay = 200 * time.Millisecond
)

// changed follows a stored key or model: restart now, or once the running
// turn has ended. what says what changed, for the message.
func (m *Model) changed(what string) tea.Cmd {
	if m.opts.Restart == nil {
		return m.print(styleDim().Render(what + "; it is used from the next start of magi-code"))
	}
	if m.running {
		m.restartPending = true
		return m.print(styleDim().Render(what + "; the backend restarts with it when this turn ends"))
	}
	return tea.Sequence(m.print(styleDim().Render(what+"; restarting the backend with it")), m.restart())
}

// restart ends the backend and starts a new one. Until it answers, the
// model is not ready; what the old backend still delivers is ignored.
func (m *Model) restart() tea.Cmd {
	m.restartPending, m.restarting, m.ready, m.reopenTries = false, true, false, 0
	m.announce = "backend restarted"
	m.readiness = "restarting"
	m.gen++
	restart, gen := m.opts.Restart, m.gen
	return func() tea.Msg {
		b, err := restart()
		return restartedMsg{gen: gen, backend: b, err: err}
	}
}

// restarted initializes the new backend; attach follows its answer.
func (m *Model) restarted(r restartedMsg) tea.Cmd {
	if r.gen != m.gen {
		return nil
	}
	if r.err != nil {
		return tea.Sequence(m.print(styleError().Render("restarting the backend failed: "+human.Printable(r.err.Error()))), m.quit(1))
	}
	m.backend = r.backend
	return tea.Batch(m.nextEvent(), m.initialize())
}

// attach attaches a session once the backend is initialized: after a
// restart the session of this app when it is on disk (a session that has
// no turn yet is not, and is replaced by a new one, losing nothing), else
// the session asked to resume, else a new one.
func (m *Model) attach() tea.Cmd {
	switch {
	case m.sessionID != "" && m.durable:
		return m.call("session.open", map[string]string{"session_id": m.sessionID})
	case m.sessionID == "" && m.opts.Resume != "":
		full, problem := m.resolve(m.opts.Resume)
		if problem != "" {
			m.noSession = true
			return m.failed("resume: " + problem)
		}
		return m.open(full)
	case m.sessionID == "" && m.opts.PickSession && !m.picked:
		m.picked = true
		return m.sessionPicker(func() tea.Cmd { return m.call("session.create", map[string]any{}) })
	}
	return m.call("session.create", map[string]any{})
}

// status shows the selection the attached session uses, and after a
// restart says so. A session keeps the model it was started with when its
// provider is still the configured one (docs/protocol.md, session.open
// restores the saved selection), so a model stored with /model may apply to
// new sessions only.
func (m *Model) status(raw json.RawMessage) tea.Cmd {
	var st struct {
		Readiness string       `json:"readiness"`
		Provider  *string      `json:"provider"`
		Model     *string      `json:"model"`
		Sandbox   string       `json:"sandbox"`
		MCP       *[]mcpServer `json:"mcp_servers"`
	}
	if json.Unmarshal(raw, &st) != nil {
		return nil
	}
	if st.MCP != nil {
		m.mcp = st.MCP
	}
	if st.Provider != nil {
		m.provider = *st.Provider
	}
	if st.Model != nil {
		m.model = *st.Model
	}
	m.readiness, m.sandbox = st.Readiness, st.Sandbox
	if m.announce == "" {
		return nil
	}
	line := styleDim().Render(m.announce + ": " + orDash(m.provider) + " · " + orDash(m.model) + " · " + human.ReadinessWord(m.readiness))
	want := m.wantModel
	m.announce, m.wantModel = "", ""
	if want != "" && want != m.model {
		return m.print(line, styleWarn().Render("this session keeps the model it was started with ("+m.model+"); /new starts a session with "+want))
	}
	return m.print(line)
}

// approvalCommand is /approval [ask|auto]: without a mode it says the mode
// in force; with one, the backends of this run use it from the next turn
// (Options.SetApproval), after a restart like /model's. The settings are
// not changed: the next start of the app uses theirs.
func (m *Model) approvalCommand(args []string) tea.Cmd {
	current := "unknown"
	if m.opts.ApprovalMode != nil {
		current = human.Visible(m.opts.ApprovalMode(), 32)
	}
	if len(args) == 0 {
		return m.print(styleDim().Render("approval mode " + current + "; /approval ask asks before commands and edits, /approval auto does not (protections still ask)"))
	}
	mode := args[0]
	switch {
	case len(args) > 1 || (mode != "ask" && mode != "auto"):
		return m.print(styleError().Render("approval: /approval ask or /approval auto"))
	case m.opts.SetApproval == nil || m.opts.Restart == nil:
		return m.print(styleError().Render("approval: the mode cannot be switched here; [tools] approval in settings.toml sets it"))
	case m.restarting:
		return m.print(styleError().Render(restartingNow("approval")))
	case mode == current && !m.restartPending:
		return m.print(styleDim().Render("approval mode is " + mode + " already"))
	}
	m.opts.SetApproval(mode)
	return m.changed("approval mode " + mode + " for this run (settings unchanged)")
}

// Errors of Options.Logout.
var (
	ErrUnknownProvider = errors.New("unknown provider")
	ErrNoCredential    = errors.New("no stored credential")
)

// logout is /logout [PROVIDER]: it removes the provider's stored key (the
// provider in use without PROVIDER), as magi-code logout does, and
// restarts the backend, which then reads the credentials without it.
func (m *Model) logout(args []string) tea.Cmd {
	provider := m.provider
	if len(args) > 0 {
		provider = args[0]
	}
	switch {
	case len(args) > 1:
		return m.print(styleError().Render("logout: /logout [PROVIDER]"))
	case m.opts.Logout == nil:
		return m.print(styleError().Render("logout is not available here"))
	case m.restarting:
		return m.print(styleError().Render(restartingNow("logout")))
	case provider == "":
		return m.print(styleError().Render("logout: no provider in use; /logout PROVIDER"))
	}
	name := human.Visible(provider, 64)
	err := m.opts.Logout(provider)
	switch {
	case errors.Is(err, ErrUnknownProvider):
		return m.print(styleError().Render("logout: unknown provider " + name + " (openai, anthropic, openrouter, or a [providers.NAME] table's name)"))
	case errors.Is(err, ErrNoCredential):
		return m.print(styleError().Render("logout: no stored credential for " + name))
	case err != nil:
		return m.print(styleError().Render("logout: the credential file (auth.json in MC_HOME) could not be changed"))
	}
	return m.changed("removed the stored " + name + " credential")
}

// mcpServer is one MCP server of the backend's status (the mcp.status
// capability).
type mcpServer struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Tools int    `json:"tools"`
}

// mcpText is /mcp: the MCP servers of the settings and their state, as
// the backend's status said.
func (m *Model) mcpText() string {
	if m.mcp == nil {
		return "mcp: the backend has not said yet (it is starting, or could not start)"
	}
	if len(*m.mcp) == 0 {
		return "mcp: no MCP servers are enabled ([mcp_servers.NAME] in settings.toml adds one)"
	}
	var b strings.Builder
	b.WriteString("MCP servers:")
	for _, s := range *m.mcp {
		name := human.Visible(s.Name, 64)
		switch s.State {
		case "running":
			fmt.Fprintf(&b, "\n  %s  running, %s", name, plural(s.Tools, "tool"))
		case "not_approved":
			fmt.Fprintf(&b, "\n  %s  not approved: not started; magi-code mcp approve %s starts it from the next start", name, name)
		default:
			fmt.Fprintf(&b, "\n  %s  %s", name, human.Visible(s.State, 32))
		}
	}
	return b.String()
}

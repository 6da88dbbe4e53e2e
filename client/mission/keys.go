package mission

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client/human"
)

const helpText = `commands:
  /login [openai|anthropic]   store an API key (asked without echo) in auth.json
  /model [PROVIDER] NAME      store the provider and model in the global settings
  /new                        start a new session
  /sessions                   this directory's sessions, most recent first
  /resume ID                  reopen a session and replay its history
  /quit                       leave (Ctrl-C twice does too)
keys: Enter sends; while a turn runs, Ctrl-C cancels it; y/n answer an approval (Enter denies)`

// key handles one key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "ctrl+c":
		switch {
		case m.mode != modePrompt:
			m.leaveLogin()
			return nil
		case m.running && !m.cancelling:
			// First Ctrl-C: cancel the turn; run.finished follows cleanup.
			m.cancelling = true
			if m.approval != nil {
				m.approval = nil
			}
			if m.runID == "" {
				m.cancelQueued = true // turn.start's answer sends it (answered)
				return nil
			}
			return m.call("turn.cancel", map[string]string{"session_id": m.sessionID, "run_id": m.runID})
		default:
			return m.quit(exitFor(m))
		}
	}
	if m.approval != nil {
		switch k.String() {
		case "y", "Y":
			return m.answer(true)
		case "n", "N", "enter", "esc":
			// docs/protocol.md, approval.answer: default deny.
			return m.answer(false)
		}
		return nil
	}
	if k.String() == "enter" {
		return m.submit(strings.TrimSpace(m.input.Value()))
	}
	m.input.Update(k)
	return nil
}

// exitFor is the exit code of leaving now: one-turn mode never ran to
// completion when the user leaves.
func exitFor(m *Model) int {
	if m.opts.Prompt != "" {
		return 1
	}
	return 0
}

// submit handles Enter on the input line.
func (m *Model) submit(line string) tea.Cmd {
	switch m.mode {
	case modeLoginProvider:
		m.input.Reset()
		if line != "openai" && line != "anthropic" {
			return m.print(styleError().Render("login: the provider is openai or anthropic"))
		}
		m.askKey(line)
		return nil
	case modeLoginKey:
		key := m.input.Value()
		provider := m.loginProvider
		m.leaveLogin()
		if key == "" {
			return m.print(styleError().Render("login: no key entered; nothing stored"))
		}
		if err := m.opts.Login(provider, key); err != nil {
			return m.print(styleError().Render("login: " + err.Error()))
		}
		return m.changed("stored the " + provider + " API key in auth.json")
	}
	m.input.Reset()
	if line == "" {
		return nil
	}
	if strings.HasPrefix(line, "/") {
		return m.command(strings.Fields(line))
	}
	switch {
	case m.running:
		return m.print(styleError().Render("wait for the current turn to finish"))
	case !m.ready && m.starting() && m.pending == "":
		// Typed while the backend starts or the session attaches: sent
		// as soon as the session is open rather than lost.
		m.pending = line
		return m.print(renderEntry("user", line, m.width))
	case !m.ready && m.starting():
		return m.print(styleError().Render("wait: the session is opening"))
	case !m.ready:
		return m.print(styleError().Render("not ready (" + m.readiness + ")"))
	}
	return m.startTurn(line)
}

func (m *Model) askKey(provider string) {
	m.mode, m.loginProvider = modeLoginKey, provider
	m.input.Hidden = true
	m.input.Prompt = provider + " API key (not shown): "
	m.input.Placeholder = ""
}

func (m *Model) leaveLogin() {
	m.mode, m.loginProvider = modePrompt, ""
	m.input.Reset()
	m.input.Hidden = false
	m.input.Prompt, m.input.Placeholder = "› ", "ask anything; /help for commands"
}

// command runs a slash command.
func (m *Model) command(f []string) tea.Cmd {
	switch f[0] {
	case "/quit", "/exit":
		return m.quit(exitFor(m))
	case "/help":
		return m.print(styleDim().Render(helpText))
	case "/login":
		if m.restarting {
			return m.print(styleError().Render("wait: the backend is restarting"))
		}
		if m.opts.Login == nil {
			return m.print(styleError().Render("login is not available here"))
		}
		if len(f) > 1 {
			if f[1] != "openai" && f[1] != "anthropic" {
				return m.print(styleError().Render("login: the provider is openai or anthropic"))
			}
			m.askKey(f[1])
			return nil
		}
		m.mode = modeLoginProvider
		m.input.Prompt = "provider (openai or anthropic): "
		return nil
	case "/model":
		if m.restarting {
			return m.print(styleError().Render("wait: the backend is restarting"))
		}
		if m.opts.SetModel == nil || len(f) < 2 || len(f) > 3 {
			return m.print(styleDim().Render(fmt.Sprintf("provider %s, model %s, %s; /model [PROVIDER] NAME changes them", m.provider, m.model, m.readiness)))
		}
		provider, model := m.provider, f[1]
		if len(f) == 3 {
			provider, model = f[1], f[2]
		}
		if err := m.opts.SetModel(provider, model); err != nil {
			return m.print(styleError().Render("model: " + err.Error()))
		}
		m.wantModel = model
		return m.changed("stored provider " + provider + ", model " + model + " in the global settings")
	case "/new":
		if m.running || m.restarting || m.readiness != "ready" {
			return m.print(styleError().Render("new: not now (" + m.readiness + ")"))
		}
		m.shown, m.announce = "", "new session"
		return m.call("session.create", map[string]any{})
	case "/sessions":
		if m.opts.Sessions == nil {
			return nil
		}
		list, err := m.opts.Sessions()
		if err != nil {
			return m.print(styleError().Render("sessions: " + err.Error()))
		}
		return m.print(human.Sessions(list, time.Local))
	case "/resume":
		if len(f) != 2 {
			return m.print(styleError().Render("resume: /resume ID (see /sessions)"))
		}
		if m.running {
			return m.print(styleError().Render("wait for the current turn to finish"))
		}
		return m.call("session.open", map[string]string{"session_id": f[1]})
	}
	return m.print(styleError().Render("unknown command " + f[0] + "; /help lists them"))
}

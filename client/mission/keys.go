package mission

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client/human"
)

// commands are the slash commands, for /help and the menu shown as "/" is
// typed.
var commands = []struct{ name, args, what string }{
	{"/help", "", "the commands and keys"},
	{"/compact", "[INSTRUCTIONS]", "summarise the conversation now; the summary replaces it"},
	{"/login", "[openai|anthropic]", "store an API key (asked without echo) in auth.json"},
	{"/logout", "[PROVIDER]", "remove a stored API key (the provider in use without PROVIDER)"},
	{"/mcp", "", "the MCP servers and their state"},
	{"/model", "[PROVIDER] [NAME]", "choose the provider and model (a list without NAME)"},
	{"/approval", "[ask|auto]", "ask before commands and edits, or not (this run; restarts the backend)"},
	{"/new", "", "start a new session"},
	{"/status", "", "model, approval mode, sandbox, session, tokens"},
	{"/sessions", "", "this directory's sessions, most recent first"},
	{"/resume", "[ID]", "reopen a session (a list without ID; a short ID works)"},
	{"/quit", "", "leave (Ctrl-C twice on an empty input does too)"},
}

const helpKeys = `keys: Enter sends · Ctrl-J or Alt-Enter: new line · Up/Down: history · Ctrl-R searches it · Ctrl-W, Ctrl-U, Ctrl-K delete
while a turn runs, Esc or Ctrl-C cancels it · y/n answer an approval after a pause in typing (arrows choose, Enter confirms; deny until moved); v pages through a request too tall for the screen, y allows it once its end was shown; a allows the exact command for the rest of the session where offered
Tab after @ completes a workspace path · Esc closes the / menu first · Ctrl-C clears the input; twice on an empty input it leaves
Ctrl-O shows the last collapsed tool output whole · Ctrl-L redraws the screen`

func helpText() string {
	var b strings.Builder
	b.WriteString("commands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-28s %s\n", strings.TrimSpace(c.name+" "+c.args), c.what)
	}
	return b.String() + helpKeys
}

// key handles one key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	m.gate.press(m.now())
	if m.picker != nil {
		return m.pickerKey(k)
	}
	armed := m.quitArmed
	m.quitArmed = false
	switch k.String() {
	case "ctrl+l":
		// Redraws everything: the conversation and the live region.
		return m.repaint()
	case "ctrl+z":
		// Suspends like any terminal program (fg resumes); a running
		// turn goes on meanwhile.
		return tea.Suspend
	case "ctrl+c", "esc":
		esc := k.String() == "esc"
		switch {
		case m.mode != modePrompt:
			m.leaveLogin()
			return nil
		case esc && m.approval != nil && m.approval.pager >= 0:
			m.approval.pager = -1 // the pager is the topmost thing
			return nil
		case m.search != nil && m.approval == nil:
			m.endSearch(false) // the search is the topmost thing: the draft comes back
			return nil
		case esc && len(m.menu()) > 0:
			// The topmost thing first: the menu closes, the turn runs on.
			m.menuClosed, m.menuSel = true, 0
			return nil
		case m.running && !m.cancelling:
			// First Ctrl-C or Esc: cancel the turn; run.finished follows cleanup.
			m.cancelling = true
			m.approval = nil // the call's activity line says it was cancelled
			if m.runID == "" {
				m.cancelQueued = true // turn.start's answer sends it (answered)
				return nil
			}
			return m.call("turn.cancel", map[string]string{"session_id": m.sessionID, "run_id": m.runID})
		case esc:
			m.menuSel = 0
			return nil
		case !m.running && m.input.Value() != "":
			// Ctrl-C with a draft clears it; once empty, Ctrl-C twice leaves.
			m.input.Reset()
			return nil
		case !m.running && !armed && m.opts.Prompt == "":
			m.quitArmed = true
			return nil
		default:
			return m.quit(exitFor(m))
		}
	}
	if k.String() == "ctrl+o" {
		return m.expandOutput() // never an answer, never typed
	}
	if m.approval != nil {
		return m.approvalKey(k)
	}
	m.gate.typed = true
	if k.String() == "ctrl+r" && m.search == nil && m.mode == modePrompt {
		m.startSearch()
		return nil
	}
	if m.search != nil && m.searchKey(k) {
		return nil
	}
	if k.String() == "tab" && m.mode == modePrompt && m.completeKey() {
		return nil
	}
	m.mentionMatches = nil
	if menu := m.menu(); len(menu) > 0 {
		switch k.String() {
		case "up":
			m.menuSel = (m.menuSel + len(menu) - 1) % len(menu)
			return nil
		case "down":
			m.menuSel = (m.menuSel + 1) % len(menu)
			return nil
		case "tab":
			m.input.set([]rune(menu[m.menuSel%len(menu)] + " "))
			m.menuSel = 0
			return nil
		case "enter":
			if !isCommand(strings.TrimSpace(m.input.Value())) {
				m.input.set([]rune(menu[m.menuSel%len(menu)]))
			}
		}
	}
	if k.String() == "enter" {
		m.menuSel = 0
		return m.submit(strings.TrimSpace(m.input.Value()))
	}
	m.input.Update(k)
	m.menuSel, m.menuClosed = 0, false
	return nil
}

func isCommand(s string) bool {
	for _, c := range commands {
		if c.name == s {
			return true
		}
	}
	return false
}

// menu lists the commands that complete what is typed: the input is a
// "/" and part of one word.
func (m *Model) menu() []string {
	v := m.input.Value()
	if m.mode != modePrompt || m.menuClosed || !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return nil
	}
	var out []string
	for _, c := range commands {
		if strings.HasPrefix(c.name, v) {
			out = append(out, c.name)
		}
	}
	return out
}

// inputLines is the input and, while a command is typed, the menu.
func (m *Model) inputLines(width int) []string {
	lines := m.input.Lines(width, max(1, m.liveRows()/2))
	if m.search != nil {
		lines = append([]string{m.searchLine(width)}, lines...)
	}
	lines = append(lines, m.draftLines(width)...)
	for _, name := range m.mentionMatches {
		lines = append(lines, styleDim().Render(truncate("  "+human.Printable(name), width, "…")))
	}
	if m.quitArmed {
		lines = append(lines, styleDim().Render(truncate("Ctrl-C again leaves", width, "…")))
	}
	menu := m.menu()
	for i, name := range menu {
		var what string
		for _, c := range commands {
			if c.name == name {
				what = strings.TrimSpace(c.args + "  " + c.what)
			}
		}
		row := truncate(fmt.Sprintf("  %-10s %s", name, what), width, "…")
		if i == m.menuSel%len(menu) {
			row = styleUser().Render(row)
		} else {
			row = styleDim().Render(row)
		}
		lines = append(lines, row)
	}
	return lines
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
			return m.print(styleError().Render("login: " + human.Printable(err.Error())))
		}
		return m.changed("stored the " + provider + " API key in auth.json")
	}
	if line != "" && !strings.HasPrefix(line, "/") {
		// Not now: the draft stays in the input for later.
		switch {
		case m.limits.tooBig(line) != "":
			return m.print(styleError().Render("not sent: " + m.limits.tooBig(line) + "; your text stays in the input"))
		case !m.ready && m.noSession && !m.restarting:
			return m.print(styleError().Render("not sent: no session is open (opening it failed); /new starts one, /resume opens another; your text stays in the input"))
		case m.running:
			return m.print(styleError().Render("not sent yet: a turn is running; your text stays in the input: Enter sends it once the turn ends (Esc or Ctrl-C cancels the turn)"))
		case !m.ready && m.starting() && m.pending != "":
			return m.print(styleError().Render("not sent yet: the backend is still starting and the prompt before this one waits for it; your text stays in the input"))
		}
	}
	m.input.AddHistory(line)
	if m.opts.History != nil && !strings.HasPrefix(line, "/") {
		m.opts.History.Add(line) // prompts only: /quit is not what Up should bring back next run
	}
	m.input.Reset()
	if line == "" {
		return nil
	}
	if strings.HasPrefix(line, "/") {
		return m.command(strings.Fields(line))
	}
	switch {
	case !m.ready && m.starting() && m.pending == "":
		// Typed while the backend starts or the session attaches: sent
		// as soon as the session is open rather than lost.
		m.pending = line
		return m.print(renderEntry("user", line, m.width, false))
	case !m.ready:
		return m.print(styleError().Render(m.notReady() + "; the prompt was not sent (Up brings it back)"))
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

// duringTurn says that what cannot be done while a turn runs and what the
// person can do: wait for the turn's end or cancel it.
func duringTurn(what string) string {
	return what + ": a turn is running; wait for it to end, or cancel it with Esc or Ctrl-C, then try again"
}

// restartingNow says that what waits for the backend's restart.
func restartingNow(what string) string {
	return what + ": the backend is restarting with the new settings; try again in a moment"
}

// command runs a slash command.
func (m *Model) command(f []string) tea.Cmd {
	switch f[0] {
	case "/quit", "/exit":
		return m.quit(exitFor(m))
	case "/help":
		return m.print(styleDim().Render(helpText()))
	case "/status":
		return m.print(styleDim().Render(m.statusText()))
	case "/login":
		if m.restarting {
			return m.print(styleError().Render(restartingNow("login")))
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
			return m.print(styleError().Render(restartingNow("model")))
		}
		if m.opts.SetModel == nil || len(f) > 3 {
			return m.print(styleDim().Render(fmt.Sprintf("provider %s, model %s, %s; /model [PROVIDER] NAME changes them", orDash(m.provider), orDash(m.model), human.ReadinessWord(m.readiness))))
		}
		if len(f) == 1 {
			return m.modelPicker()
		}
		provider, model := m.provider, f[1]
		if len(f) == 3 {
			provider, model = f[1], f[2]
		}
		return m.setModel(provider, model)
	case "/approval":
		return m.approvalCommand(f[1:])
	case "/compact":
		switch {
		case m.running:
			return m.print(styleError().Render(duringTurn("compact")))
		case m.restarting:
			return m.print(styleError().Render(restartingNow("compact")))
		case !m.ready:
			return m.print(styleError().Render("compact: " + m.notReady()))
		}
		// The backend compacts for the command itself (the compact
		// capability): the conversation's summary replaces it.
		return tea.Sequence(m.print(styleDim().Render("compacting the conversation: a summary will replace it")), m.begin(strings.Join(f, " ")))
	case "/mcp":
		return m.print(styleDim().Render(m.mcpText()))
	case "/logout":
		return m.logout(f[1:])
	case "/new":
		switch {
		case m.running:
			return m.print(styleError().Render(duringTurn("new")))
		case m.restarting:
			return m.print(styleError().Render(restartingNow("new")))
		case m.readiness != "ready":
			return m.print(styleError().Render("new: " + m.notReady()))
		}
		m.shown, m.announce = "", "new session"
		return m.call("session.create", map[string]any{})
	case "/sessions":
		if m.opts.Sessions == nil {
			return nil
		}
		list, err := m.opts.Sessions()
		if err != nil {
			return m.print(styleError().Render("sessions: the session list could not be read"))
		}
		return m.print(human.Sessions(list, time.Local))
	case "/resume":
		if len(f) > 2 {
			return m.print(styleError().Render("resume: /resume [ID] (see /sessions)"))
		}
		switch {
		case m.running:
			return m.print(styleError().Render(duringTurn("resume")))
		case m.restarting:
			return m.print(styleError().Render(restartingNow("resume")))
		}
		if len(f) == 1 {
			return m.sessionPicker()
		}
		return m.resume(f[1])
	}
	return m.print(styleError().Render("unknown command " + f[0] + "; /help lists them"))
}

package mission

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client/human"
)

// The session picker lists this directory's sessions, most recent first,
// by short ID, last activity and first prompt; /resume without an ID and
// `magi-code resume` without one open it. /resume takes a full ID or the
// short one the status bar and the picker show (any unique prefix).

// sessionLabel is one row of the session picker.
func sessionLabel(s SessionInfo) string {
	first := human.OneLine(s.FirstPrompt, 200)
	if first == "" {
		first = "(no prompt)"
	}
	return fmt.Sprintf("%s  %s  %s", short(s.ID), s.LastActivity.Local().Format("01-02 15:04"), first)
}

// sessionPicker opens the picker; onEsc, when set, runs if it is closed
// without a choice.
func (m *Model) sessionPicker(onEsc ...func() tea.Cmd) tea.Cmd {
	if m.opts.Sessions == nil {
		return m.print(styleError().Render("resume: not available here"))
	}
	list, err := m.opts.Sessions()
	if err != nil {
		return m.print(styleError().Render("sessions: the session list could not be read"))
	}
	if len(list) == 0 {
		m.print(styleDim().Render("no sessions in this directory"))
		if len(onEsc) > 0 {
			return onEsc[0]()
		}
		return m.pump()
	}
	p := &picker{title: "resume which session?"}
	for _, s := range list {
		p.items = append(p.items, pickItem{label: sessionLabel(s), value: []string{s.ID}})
	}
	p.onPick = func(it pickItem) tea.Cmd { return m.open(it.value[0]) }
	if len(onEsc) > 0 {
		p.onEsc = onEsc[0]
	}
	m.picker = p
	return nil
}

// resume reopens the session id names: a full ID, or a prefix of one of
// this directory's sessions that no other shares.
func (m *Model) resume(id string) tea.Cmd {
	full, problem := m.resolve(id)
	if problem != "" {
		return m.print(styleError().Render("resume: " + problem))
	}
	return m.open(full)
}

// resolve finds the session id names.
func (m *Model) resolve(id string) (string, string) {
	if len(id) == 36 || m.opts.Sessions == nil {
		return id, ""
	}
	list, err := m.opts.Sessions()
	if err != nil {
		return "", "the session list could not be read"
	}
	var found []string
	for _, s := range list {
		if strings.HasPrefix(strings.ToLower(s.ID), strings.ToLower(id)) {
			found = append(found, s.ID)
		}
	}
	switch len(found) {
	case 0:
		return "", "no session of this directory has that ID (/resume alone lists them)"
	case 1:
		return found[0], ""
	}
	return "", fmt.Sprintf("%d sessions start with that; type more of the ID", len(found))
}

// open asks the backend to reopen session id.
func (m *Model) open(id string) tea.Cmd {
	return m.call("session.open", map[string]string{"session_id": id})
}

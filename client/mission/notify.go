package mission

import (
	tea "charm.land/bubbletea/v2"
)

// The app notifies when an approval starts waiting and when a long turn
// ends: a desktop notification (OSC 9) on the terminals known to show one,
// the bell (BEL) elsewhere. A terminal multiplexer (tmux, screen) swallows
// OSC 9, so inside one the bell rings. The text is the app's own, never
// the model's.

// osc9Terminals are the values of TERM_PROGRAM whose terminals show OSC 9
// as a desktop notification.
var osc9Terminals = map[string]bool{"iTerm.app": true, "WezTerm": true, "ghostty": true}

// Notifier returns how the terminal described by getenv is notified: the
// sequence that carries text.
func Notifier(getenv func(string) string) func(text string) string {
	bel := func(string) string { return "\a" }
	if getenv("TMUX") != "" || getenv("STY") != "" {
		return bel
	}
	if osc9Terminals[getenv("TERM_PROGRAM")] || getenv("TERM") == "xterm-kitty" {
		return func(text string) string { return "\x1b]9;" + text + "\a" }
	}
	return bel
}

// notify notifies the person with one of the app's fixed texts.
func (m *Model) notify(text string) tea.Cmd {
	seq := "\a"
	if m.opts.Notify != nil {
		seq = m.opts.Notify(text)
	}
	return tea.Raw(seq)
}

// finishedText is a turn's notification: fixed words for the outcome.
func finishedText(outcome string) string {
	switch outcome {
	case "completed":
		return "magi-code: turn completed"
	case "cancelled":
		return "magi-code: turn cancelled"
	}
	return "magi-code: turn failed"
}

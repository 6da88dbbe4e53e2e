package mission

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// lineInput is the one-line input: typed text, Backspace, Ctrl-U clears,
// pasted text inserted whole. Hidden input (an API key) shows nothing of
// what was typed, not even its length. A few lines instead of bubbles'
// textinput, whose clipboard dependency probes PATH at package init, which
// every `serve --stdio` start would pay.
type lineInput struct {
	Prompt      string
	Placeholder string
	Hidden      bool
	value       []rune
}

func (in *lineInput) Value() string { return string(in.value) }

func (in *lineInput) Reset() { in.value = in.value[:0] }

// Update applies a key press or a paste.
func (in *lineInput) Update(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		in.value = append(in.value, []rune(strings.ReplaceAll(msg.Content, "\n", " "))...)
	case tea.KeyPressMsg:
		switch msg.String() {
		case "backspace":
			if len(in.value) > 0 {
				in.value = in.value[:len(in.value)-1]
			}
		case "ctrl+u":
			in.Reset()
		default:
			if msg.Text != "" {
				in.value = append(in.value, []rune(msg.Text)...)
			}
		}
	}
}

// View is the prompt and the text (nothing of it when hidden).
func (in *lineInput) View() string {
	switch {
	case in.Hidden:
		return in.Prompt
	case len(in.value) == 0 && in.Placeholder != "":
		return in.Prompt + styleDim().Render(in.Placeholder)
	}
	return in.Prompt + string(in.value) + "█"
}

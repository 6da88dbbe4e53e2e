package mission

import (
	"io"

	tea "charm.land/bubbletea/v2"
)

// Run runs Mission Control on the terminal (in and out) until the user
// leaves or, with Options.Prompt, the turn ends, and returns the exit code.
// The program draws inline (no alternate screen): finished turns stay in
// the terminal's scrollback.
func Run(opts Options, in io.Reader, out io.Writer) int {
	m := New(opts)
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(out))
	if _, err := p.Run(); err != nil {
		return 1
	}
	return m.ExitCode
}

package mission

import (
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// Run runs Mission Control on the terminal (in and out) until the user
// leaves or, with Options.Prompt, the turn ends, and returns the exit code:
// ExitHangup when the terminal went away or SIGHUP came. The program draws
// inline (no alternate screen): finished turns stay in the terminal's
// scrollback.
func Run(opts Options, in io.Reader, out io.Writer) int {
	hup, stop := hangupSignal()
	defer stop()
	return runWith(opts, in, out, hup)
}

// runWith is Run with SIGHUP delivered on hup (nil: never).
func runWith(opts Options, in io.Reader, out io.Writer, hup <-chan os.Signal) int {
	if opts.Notify == nil {
		opts.Notify = Notifier(os.Getenv)
	}
	opts.Hyperlinks = hyperlinks(os.Getenv)
	m := New(opts)
	var popts []tea.ProgramOption
	if noColor(os.Getenv) {
		// The one colour switch. The renderer draws the live region at
		// this profile, but what goes to the scrollback (tea.Println) is
		// written as it is: the output itself drops every colour
		// sequence too. Bold, faint, reverse and underline stay, as
		// no-color.org allows.
		out = colourless(out)
		popts = append(popts, tea.WithColorProfile(colorprofile.ASCII))
	}
	h := newHangup()
	defer h.cancel(nil)
	ended := make(chan struct{})
	defer close(ended)
	go h.watchSignal(hup, ended)
	p := tea.NewProgram(m, append(popts, tea.WithContext(h.ctx), tea.WithInput(h.input(in)), tea.WithOutput(h.output(out)))...)
	_, err := p.Run()
	switch {
	case h.happened():
		return ExitHangup
	case err != nil:
		return 1
	}
	return m.ExitCode
}

// hyperlinks reports whether links may be OSC 8 hyperlinks: not on a dumb
// terminal (TERM unset or dumb), nor under NO_COLOR, which asks for a plain
// output (the link's text and URL stay shown either way).
func hyperlinks(getenv func(string) string) bool {
	term := getenv("TERM")
	return term != "" && term != "dumb" && !noColor(getenv)
}

// noColor reports whether NO_COLOR asks for no colour: set and not empty,
// whatever its value (no-color.org). Bubble Tea's own detection reads it
// as a boolean, so NO_COLOR=yes or NO_COLOR=0 would keep the colours.
func noColor(getenv func(string) string) bool {
	return getenv("NO_COLOR") != ""
}

// colourless returns out with every SGR colour of each write removed
// (colorprofile's writer at ASCII). Bubble Tea writes whole escape
// sequences in each write, which that writer needs. A terminal file stays
// one (its Fd), so that the program still finds the terminal's size.
func colourless(out io.Writer) io.Writer {
	w := &colorprofile.Writer{Forward: out, Profile: colorprofile.ASCII}
	if f, ok := out.(ttyFile); ok {
		return colourlessFile{ttyFile: f, w: w}
	}
	return w
}

type colourlessFile struct {
	ttyFile
	w *colorprofile.Writer
}

func (c colourlessFile) Write(p []byte) (int, error)       { return c.w.Write(p) }
func (c colourlessFile) WriteString(s string) (int, error) { return c.w.Write([]byte(s)) }

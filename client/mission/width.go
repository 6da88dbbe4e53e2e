package mission

import (
	"strings"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Every width the app computes (wrapping, truncating, the input's rows,
// the status bar, tables) is measured here, by the rule the terminal
// draws by: a grapheme cluster in the columns of its cluster width once
// the terminal answers the mode 2027 query (Bubble Tea reads the same
// answer and draws by clusters), else code point by code point, as such
// a terminal (tmux 3.3, xterm) and Bubble Tea then draw (a ZWJ family
// takes 6 columns, a thumb with its skin tone 4). The rule belongs to the
// terminal, and the process draws on one: New starts with code points,
// and the answer switches it.
var clusterWidths atomic.Bool

// noteWidthMode switches to cluster widths when msg is the terminal's
// answer that it knows mode 2027 (set, reset or permanently set; not
// "not recognized").
func noteWidthMode(msg tea.Msg) {
	if r, ok := msg.(tea.ModeReportMsg); ok && r.Mode == ansi.ModeUnicodeCore &&
		(r.Value == ansi.ModeSet || r.Value == ansi.ModeReset || r.Value == ansi.ModePermanentlySet) {
		clusterWidths.Store(true)
	}
}

// strWidth is the number of columns s takes on the terminal (escape
// sequences take none).
func strWidth(s string) int {
	if clusterWidths.Load() {
		return ansi.StringWidth(s)
	}
	return ansi.StringWidthWc(s)
}

// truncate cuts s to n columns, ending it with tail when it is cut.
func truncate(s string, n int, tail string) string {
	if clusterWidths.Load() {
		return ansi.Truncate(s, n, tail)
	}
	if ansi.StringWidthWc(s) <= n {
		return s
	}
	// TruncateWc returns s whole when its grapheme-cluster width fits,
	// though its code points do not: the padding (past the cut, dropped)
	// makes it cut by code points.
	return ansi.TruncateWc(s+strings.Repeat(" ", n+1), n, tail)
}

// wrap wraps s to n columns at word boundaries, breaking longer words.
func wrap(s string, n int, breakpoints string) string {
	if clusterWidths.Load() {
		return ansi.Wrap(s, n, breakpoints)
	}
	return ansi.WrapWc(s, n, breakpoints)
}

// hardwrap breaks s every n columns.
func hardwrap(s string, n int, preserveSpace bool) string {
	if clusterWidths.Load() {
		return ansi.Hardwrap(s, n, preserveSpace)
	}
	return ansi.HardwrapWc(s, n, preserveSpace)
}

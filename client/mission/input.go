package mission

import (
	"strings"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// editor is the input: several lines, a cursor, history, paste and
// wrapping. Enter sends; Ctrl-J, Shift-Enter or Alt-Enter start a new line;
// a paste is inserted whole, its line breaks kept. Up on the first line
// and Down on the last walk the history of this app's prompts. Hidden input
// (an API key) shows nothing of what was typed, not even its length.
//
// Written here rather than taken from bubbles' textarea: the textarea
// imports a clipboard package whose init probes PATH for clipboard
// programs, which every process of this binary, `serve --stdio` included,
// would pay at start-up.
type editor struct {
	Prompt      string
	Placeholder string
	Hidden      bool
	value       []rune
	pos         int // cursor: an index into value
	history     []string
	hist        int    // the history entry shown; len(history): the draft
	draft       []rune // what was typed before walking the history
}

func (in *editor) Value() string { return string(in.value) }

func (in *editor) Reset() {
	in.value, in.pos, in.hist, in.draft = in.value[:0], 0, len(in.history), nil
}

func (in *editor) set(s []rune) { in.value, in.pos = append([]rune(nil), s...), len(s) }

// AddHistory records a sent prompt (not a repeat of the last one).
func (in *editor) AddHistory(s string) {
	if s != "" && (len(in.history) == 0 || in.history[len(in.history)-1] != s) {
		in.history = append(in.history, s)
	}
	in.hist = len(in.history)
}

func (in *editor) insert(rs []rune) {
	v := make([]rune, 0, len(in.value)+len(rs))
	v = append(append(append(v, in.value[:in.pos]...), rs...), in.value[in.pos:]...)
	in.value, in.pos = v, in.pos+len(rs)
}

func (in *editor) cut(from, to int) {
	in.value = append(in.value[:from], in.value[to:]...)
	in.pos = from
}

// cluster is one grapheme cluster of the value, what a terminal draws as
// one character (an emoji with its skin tone or variation selector, a
// ZWJ family, a letter with its combining marks): runes [from, to).
type cluster struct{ from, to int }

// clusters splits v into grapheme clusters.
func clusters(v []rune) []cluster {
	var out []cluster
	s, r := string(v), 0
	for s != "" {
		c, _ := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
		if c == "" {
			break
		}
		n := utf8.RuneCountInString(c)
		out = append(out, cluster{r, r + n})
		s, r = s[len(c):], r+n
	}
	return out
}

// prevBoundary is where the cluster before the cursor begins; nextBoundary
// where the cluster at the cursor ends. The cursor moves, and Backspace
// and Delete remove, a whole cluster at a time.
func (in *editor) prevBoundary() int {
	b := 0
	for _, c := range clusters(in.value) {
		if c.from >= in.pos {
			break
		}
		b = c.from
	}
	return b
}

func (in *editor) nextBoundary() int {
	for _, c := range clusters(in.value) {
		if c.to > in.pos {
			return c.to
		}
	}
	return len(in.value)
}

// lineStart and lineEnd bound the line the cursor is on.
func (in *editor) lineStart() int {
	i := in.pos
	for i > 0 && in.value[i-1] != '\n' {
		i--
	}
	return i
}

func (in *editor) lineEnd() int {
	i := in.pos
	for i < len(in.value) && in.value[i] != '\n' {
		i++
	}
	return i
}

func (in *editor) wordLeft() int {
	i := in.pos
	for i > 0 && unicode.IsSpace(in.value[i-1]) {
		i--
	}
	for i > 0 && !unicode.IsSpace(in.value[i-1]) {
		i--
	}
	return i
}

func (in *editor) wordRight() int {
	i := in.pos
	for i < len(in.value) && unicode.IsSpace(in.value[i]) {
		i++
	}
	for i < len(in.value) && !unicode.IsSpace(in.value[i]) {
		i++
	}
	return i
}

// vertical moves the cursor one line up (-1) or down (+1), keeping its
// column; at the first or last line it walks the history instead.
func (in *editor) vertical(dir int) {
	start, end := in.lineStart(), in.lineEnd()
	col := in.pos - start
	switch {
	case dir < 0 && start > 0:
		prevStart := start - 1
		for prevStart > 0 && in.value[prevStart-1] != '\n' {
			prevStart--
		}
		in.pos = prevStart + min(col, start-1-prevStart)
	case dir > 0 && end < len(in.value):
		nextEnd := end + 1
		for nextEnd < len(in.value) && in.value[nextEnd] != '\n' {
			nextEnd++
		}
		in.pos = end + 1 + min(col, nextEnd-end-1)
	default:
		in.walk(dir)
	}
}

// walk shows the previous (-1) or next (+1) history entry.
func (in *editor) walk(dir int) {
	to := in.hist + dir
	if to < 0 || to > len(in.history) {
		return
	}
	if in.hist == len(in.history) {
		in.draft = append([]rune(nil), in.value...)
	}
	in.hist = to
	if to == len(in.history) {
		in.set(in.draft)
		return
	}
	in.set([]rune(in.history[to]))
}

// normalize turns a paste's line breaks (CR LF, CR) into LF and drops
// other control characters but tabs.
func normalize(s string) []rune {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			out = append(out, r)
		}
	}
	return out
}

// Update applies a key press or a paste.
func (in *editor) Update(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		rs := normalize(msg.Content)
		if in.Hidden {
			rs = []rune(strings.TrimSpace(string(rs)))
		}
		in.insert(rs)
	case tea.KeyPressMsg:
		switch msg.String() {
		case "left", "ctrl+b":
			in.pos = in.prevBoundary()
		case "right", "ctrl+f":
			in.pos = in.nextBoundary()
		case "alt+left", "alt+b", "ctrl+left":
			in.pos = in.wordLeft()
		case "alt+right", "alt+f", "ctrl+right":
			in.pos = in.wordRight()
		case "home", "ctrl+a":
			in.pos = in.lineStart()
		case "end", "ctrl+e":
			in.pos = in.lineEnd()
		case "up":
			in.vertical(-1)
		case "down":
			in.vertical(1)
		case "backspace", "ctrl+h":
			if in.pos > 0 {
				in.cut(in.prevBoundary(), in.pos)
			}
		case "delete", "ctrl+d":
			if in.pos < len(in.value) {
				in.cut(in.pos, in.nextBoundary())
			}
		case "ctrl+w", "alt+backspace":
			in.cut(in.wordLeft(), in.pos)
		case "ctrl+u":
			in.cut(in.lineStart(), in.pos)
		case "ctrl+k":
			in.cut(in.pos, in.lineEnd())
		case "ctrl+j", "shift+enter", "alt+enter":
			if !in.Hidden {
				in.insert([]rune{'\n'})
			}
		default:
			if msg.Text != "" {
				in.insert(normalize(msg.Text))
			}
		}
	}
}

// Lines renders the input wrapped to width in at most rows lines, the
// cursor's line among them.
func (in *editor) Lines(width, rows int) []string {
	prompt := truncate(in.Prompt, max(1, width-4), "…")
	switch {
	case in.Hidden:
		return []string{prompt}
	case len(in.value) == 0:
		return []string{prompt + styleDim().Render(truncate(in.Placeholder, max(1, width-strWidth(prompt)), "…"))}
	}
	pw := strWidth(prompt)
	cw := max(1, width-pw-1) // a column for the cursor after the last character
	var out []string
	var row strings.Builder
	col, cursorRow := 0, 0
	cursor := styleCursor()
	flush := func() {
		lead := strings.Repeat(" ", pw)
		if len(out) == 0 {
			lead = prompt
		}
		out = append(out, lead+row.String())
		row.Reset()
		col = 0
	}
	// One grapheme cluster at a time, measured as the terminal draws it
	// (strWidth), never split across rows; the cursor is on the
	// cluster it is in, or on a blank cell after the last one.
	cs := append(clusters(in.value), cluster{len(in.value), len(in.value) + 1})
	for _, c := range cs {
		at := c.from <= in.pos && in.pos < c.to
		s := " "
		if c.from < len(in.value) {
			s = string(in.value[c.from:c.to])
		}
		if s == "\n" {
			if at {
				row.WriteString(cursor.Render(" "))
				cursorRow = len(out)
			}
			flush()
			continue
		}
		if s == "\t" {
			s = "    "
		}
		w := strWidth(s)
		if col+w > cw && col > 0 {
			flush()
		}
		if at {
			row.WriteString(cursor.Render(s))
			cursorRow = len(out)
		} else if c.from < len(in.value) {
			row.WriteString(s)
		}
		col += w
	}
	flush()
	if len(out) > rows {
		first := min(max(0, cursorRow-rows+1), len(out)-rows)
		out = out[first : first+rows]
	}
	return out
}

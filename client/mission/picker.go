package mission

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client/human"
)

// picker is a list shown in the live region in place of the input: the
// session picker (/resume, `magi-code resume`) and the model picker
// (/model). Typing filters it (the rows holding every typed word, in any
// case; Backspace takes a character back), Up and Down move among the rows
// shown, Enter picks the highlighted one (nothing when none is shown), Esc
// closes.
type picker struct {
	title  string
	items  []pickItem
	sel    int    // index in items of the highlighted row; -1: none shown
	filter string // what was typed
	onPick func(pickItem) tea.Cmd
	onEsc  func() tea.Cmd // nil: Esc only closes
	cancel func()         // ends what the open picker waits for; nil: nothing
}

// pickItem is one row: what is shown and what is picked.
type pickItem struct {
	label string
	value []string
}

// shown is the indices of the rows the filter keeps, in order.
func (p *picker) shown() []int {
	words := strings.Fields(strings.ToLower(p.filter))
	var out []int
	for i, it := range p.items {
		label := strings.ToLower(it.label)
		keep := true
		for _, w := range words {
			keep = keep && strings.Contains(label, w)
		}
		if keep {
			out = append(out, i)
		}
	}
	return out
}

// refilter keeps the highlight on a row shown: the same one when the
// filter keeps it, else the first shown (-1 when none is).
func (p *picker) refilter() {
	rows := p.shown()
	if slices.Contains(rows, p.sel) {
		return
	}
	p.sel = -1
	if len(rows) > 0 {
		p.sel = rows[0]
	}
}

// move moves the highlight by d rows among those shown, within them.
func (p *picker) move(d int) {
	rows := p.shown()
	if len(rows) == 0 {
		return
	}
	at := max(0, slices.Index(rows, p.sel))
	p.sel = rows[min(len(rows)-1, max(0, at+d))]
}

// lines renders the picker in at most rows lines.
func (p *picker) lines(width, rows int) []string {
	title := p.title + " · type to filter"
	if p.filter != "" {
		title = "filter: " + p.filter + " · " + p.title // first: a narrow screen cuts the title's end
	}
	out := []string{styleAsk().Render(truncate(human.Visible(title, 1<<10), width, "…"))}
	room := max(1, rows-2)
	list := p.shown()
	at := max(0, slices.Index(list, p.sel))
	first := 0
	if at >= room {
		first = at - room + 1
	}
	for k := first; k < len(list) && k < first+room; k++ {
		i := list[k]
		label := truncate(human.Visible(p.items[i].label, 1<<10), width-2, "…")
		if i == p.sel {
			out = append(out, styleUser().Render("› "+label))
			continue
		}
		out = append(out, "  "+label)
	}
	if len(list) == 0 {
		out = append(out, styleDim().Render(truncate("  nothing matches; Backspace takes a character back", width, "…")))
	}
	hint := "↑/↓ choose · Enter picks · Esc closes"
	switch {
	case p.filter != "":
		hint = fmt.Sprintf("%d of %d match · ", len(list), len(p.items)) + hint
	case len(list) > room:
		hint = fmt.Sprintf("%d of %d · ", at+1, len(p.items)) + hint
	}
	return append(out, styleDim().Render(truncate(hint, width, "…")))
}

// pickerKey handles a key while a picker is open.
func (m *Model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	switch k.String() {
	case "up", "ctrl+p":
		p.move(-1)
	case "down", "ctrl+n", "tab":
		p.move(1)
	case "pgup":
		p.move(-10)
	case "pgdown":
		p.move(10)
	case "home":
		p.move(-len(p.items))
	case "end":
		p.move(len(p.items))
	case "backspace":
		if r := []rune(p.filter); len(r) > 0 {
			p.filter = string(r[:len(r)-1])
			p.refilter()
		}
	case "enter":
		if p.sel < 0 || p.sel >= len(p.items) {
			return nil // nothing shown: nothing to pick
		}
		m.picker = nil
		p.close()
		return p.onPick(p.items[p.sel])
	case "esc", "ctrl+c":
		m.picker = nil
		p.close()
		if p.onEsc != nil {
			return p.onEsc()
		}
	default:
		if k.Text != "" && k.Mod&^tea.ModShift == 0 && len(p.filter) < maxFilter {
			p.filter += human.Visible(k.Text, maxFilter)
			p.refilter()
		}
	}
	return nil
}

// maxFilter bounds what a picker's filter holds.
const maxFilter = 256

// close cancels what the picker waits for (the server's model list).
func (p *picker) close() {
	if p.cancel != nil {
		p.cancel()
	}
}

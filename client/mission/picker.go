package mission

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/magi-code/magi-code/client/human"
)

// picker is a list shown in the live region in place of the input: the
// session picker (/resume, `magi-code resume`) and the model picker
// (/model). Up and Down move, Enter picks, Esc closes.
type picker struct {
	title  string
	items  []pickItem
	sel    int
	onPick func(pickItem) tea.Cmd
	onEsc  func() tea.Cmd // nil: Esc only closes
	cancel func()         // ends what the open picker waits for; nil: nothing
}

// pickItem is one row: what is shown and what is picked.
type pickItem struct {
	label string
	value []string
}

// lines renders the picker in at most rows lines.
func (p *picker) lines(width, rows int) []string {
	out := []string{styleAsk().Render(ansi.Truncate(human.Visible(p.title, 1<<10), width, "…"))}
	room := max(1, rows-2)
	first := 0
	if p.sel >= room {
		first = p.sel - room + 1
	}
	for i := first; i < len(p.items) && i < first+room; i++ {
		mark := "  "
		label := ansi.Truncate(human.Visible(p.items[i].label, 1<<10), width-2, "…")
		if i == p.sel {
			out = append(out, styleUser().Render("› "+label))
			continue
		}
		out = append(out, mark+label)
	}
	hint := "↑/↓ choose · Enter picks · Esc closes"
	if len(p.items) > room {
		hint = fmt.Sprintf("%d of %d · ", p.sel+1, len(p.items)) + hint
	}
	return append(out, styleDim().Render(ansi.Truncate(hint, width, "…")))
}

// pickerKey handles a key while a picker is open.
func (m *Model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	p := m.picker
	switch k.String() {
	case "up", "ctrl+p", "k":
		p.sel = max(0, p.sel-1)
	case "down", "ctrl+n", "j", "tab":
		p.sel = min(len(p.items)-1, p.sel+1)
	case "pgup":
		p.sel = max(0, p.sel-10)
	case "pgdown":
		p.sel = min(len(p.items)-1, p.sel+10)
	case "home":
		p.sel = 0
	case "end":
		p.sel = len(p.items) - 1
	case "enter":
		m.picker = nil
		p.close()
		if len(p.items) == 0 {
			return nil
		}
		return p.onPick(p.items[p.sel])
	case "esc", "ctrl+c":
		m.picker = nil
		p.close()
		if p.onEsc != nil {
			return p.onEsc()
		}
	}
	return nil
}

// close cancels what the picker waits for (the server's model list).
func (p *picker) close() {
	if p.cancel != nil {
		p.cancel()
	}
}

package mission

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/catwalk/pkg/catwalk"
	"charm.land/catwalk/pkg/embedded"
)

// The model picker (/model without a name) lists the models known for each
// provider magi-code speaks to, from Charm's catalog (charm.land/catwalk),
// which ships with this binary: no network. The catalog is read when the
// picker opens, never at start-up: its package has no init work, and
// `serve --stdio` never calls it.

// ModelChoice is one model the picker offers.
type ModelChoice struct {
	Provider, ID, Name string
	ContextWindow      int64
	In, Out            float64 // USD per million tokens; 0: unknown
}

// supported are the providers magi-code has clients for, by catwalk's ID.
var supported = []string{"anthropic", "openai"}

// KnownModels lists the catalog's models of the supported providers,
// provider by provider, each provider's default first.
func KnownModels() []ModelChoice {
	var out []ModelChoice
	for _, p := range embedded.GetAll() {
		if !isSupported(string(p.ID)) {
			continue
		}
		models := append([]catwalk.Model(nil), p.Models...)
		sort.SliceStable(models, func(i, j int) bool {
			return models[i].ID == p.DefaultLargeModelID && models[j].ID != p.DefaultLargeModelID
		})
		for _, mo := range models {
			out = append(out, ModelChoice{Provider: string(p.ID), ID: mo.ID, Name: mo.Name, ContextWindow: mo.ContextWindow, In: mo.CostPer1MIn, Out: mo.CostPer1MOut})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Provider < out[j].Provider })
	return out
}

func isSupported(id string) bool {
	for _, s := range supported {
		if s == id {
			return true
		}
	}
	return false
}

// modelLabel is one row of the model picker.
func modelLabel(c ModelChoice, current bool) string {
	var extra []string
	if c.ContextWindow > 0 {
		extra = append(extra, fmt.Sprintf("%dk context", c.ContextWindow/1000))
	}
	if c.In > 0 || c.Out > 0 {
		extra = append(extra, "$"+price(c.In)+"/$"+price(c.Out)+" per M tokens")
	}
	label := fmt.Sprintf("%-9s %s", c.Provider, c.ID)
	if len(extra) > 0 {
		label += "  " + strings.Join(extra, ", ")
	}
	if current {
		label += "  (current)"
	}
	return label
}

// modelPicker opens the model picker; the row of the current selection is
// selected.
func (m *Model) modelPicker() tea.Cmd {
	list := m.opts.Models
	if list == nil {
		list = KnownModels
	}
	choices := list()
	if len(choices) == 0 {
		return m.print(styleError().Render("model: no known models; /model PROVIDER NAME sets one by name"))
	}
	p := &picker{title: "choose a model (stored in the global settings)"}
	for i, c := range choices {
		current := c.Provider == m.provider && c.ID == m.model
		if current {
			p.sel = i
		}
		p.items = append(p.items, pickItem{label: modelLabel(c, current), value: []string{c.Provider, c.ID}})
	}
	p.onPick = func(it pickItem) tea.Cmd { return m.setModel(it.value[0], it.value[1]) }
	m.picker = p
	fetch := m.opts.ServerModels
	if fetch == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.title += " · asking the server for its models…"
	return func() tea.Msg {
		list, err := fetch(ctx)
		return serverModelsMsg{picker: p, list: list, err: err}
	}
}

// serverModelsMsg is the answer of Options.ServerModels for the picker
// that asked.
type serverModelsMsg struct {
	picker *picker
	list   []ModelChoice
	err    error
}

// serverModels lists a server's models first in the picker that asked,
// the selected row kept (a picker closed meanwhile is no longer shown).
func (m *Model) serverModels(msg serverModelsMsg) {
	p := msg.picker
	p.close()
	p.title = strings.TrimSuffix(p.title, " · asking the server for its models…")
	if msg.err != nil {
		p.title += " · the server did not list its models"
		return
	}
	items := make([]pickItem, 0, len(msg.list)+len(p.items))
	for _, c := range msg.list {
		current := c.Provider == m.provider && c.ID == m.model
		items = append(items, pickItem{label: modelLabel(c, current), value: []string{c.Provider, c.ID}})
	}
	if p.sel >= 0 {
		p.sel += len(items)
	}
	for i, it := range items { // the current model is the server's: select it
		if it.value[0] == m.provider && it.value[1] == m.model {
			p.sel = i
		}
	}
	p.items = append(items, p.items...)
	p.refilter() // what was typed filters the server's models too
}

// setModel stores provider and model and restarts the backend with them.
func (m *Model) setModel(provider, model string) tea.Cmd {
	if err := m.opts.SetModel(provider, model); err != nil {
		return m.print(styleError().Render("model: " + err.Error()))
	}
	m.wantModel = model
	return m.changed("stored provider " + provider + ", model " + model + " in the global settings")
}

// price is a catalog price as people write it: at most four decimals,
// so that 0.39999999999999997 reads 0.4.
func price(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64)
}

package agent

import (
	"strings"
	"sync"

	"charm.land/catwalk/pkg/catwalk"
	"charm.land/catwalk/pkg/embedded"
)

// catalogWindows maps model IDs to context windows in tokens, from
// Charm's model catalog (charm.land/catwalk) that ships with this binary:
// no network. It is parsed once, on the first turn that needs a window,
// never at start-up. own holds OpenAI's and Anthropic's entries for their
// own models; other the rest, the smallest window where several providers
// list an ID (a host may serve a model with less context than its maker).
type windowTables struct{ own, other map[string]int }

var catalogWindows = sync.OnceValue(func() windowTables {
	t := windowTables{own: map[string]int{}, other: map[string]int{}}
	for _, p := range embedded.GetAll() {
		table := t.other
		if p.ID == catwalk.InferenceProviderOpenAI || p.ID == catwalk.InferenceProviderAnthropic {
			table = t.own
		}
		for _, m := range p.Models {
			if w := int(m.ContextWindow); w > 0 && (table[m.ID] == 0 || w < table[m.ID]) {
				table[m.ID] = w
			}
		}
	}
	return t
})

// catalogWindow returns the catalog's context window of model, 0 when the
// catalog does not know it: the maker's own entry first, then another
// provider's; within each an exact ID, else a dated snapshot of the name
// (claude-sonnet-4-5 is claude-sonnet-4-5-20250929), the smallest window
// when several match.
func catalogWindow(model string) int {
	t := catalogWindows()
	for _, table := range []map[string]int{t.own, t.other} {
		if w, ok := table[model]; ok {
			return w
		}
		best := 0
		for id, w := range table {
			rest, ok := strings.CutPrefix(id, model+"-")
			if ok && isDate(rest) && (best == 0 || w < best) {
				best = w
			}
		}
		if best > 0 {
			return best
		}
	}
	return 0
}

// isDate reports whether s is a snapshot date suffix: eight digits.
func isDate(s string) bool {
	if len(s) != 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

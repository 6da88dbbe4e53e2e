package mission

import (
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client/human"
)

// Ctrl-R searches the prompt history backwards, as a shell does: the
// typed text is looked for in the earlier prompts (this run's and those
// kept across runs), newest first, ignoring case; the match stands in the
// input. Ctrl-R again goes to the next older match; Enter keeps the match
// in the input (to edit or send); Esc, Ctrl-C or Ctrl-G restores the draft;
// any other key keeps the match and then does what it does.

// promptSearch is a reverse search in progress.
type promptSearch struct {
	query  string
	at     int    // the matched history entry, -1 when none
	draft  []rune // the input before the search
	failed bool   // the last search found nothing
}

// maxSearchQuery bounds the query; a longer one is not extended.
const maxSearchQuery = 256

// findOlder is the index of the newest entry at or before from that holds
// query, ignoring case; -1 when none does or query is empty.
func findOlder(entries []string, query string, from int) int {
	if query == "" {
		return -1
	}
	q := strings.ToLower(query)
	for i := min(from, len(entries)-1); i >= 0; i-- {
		if strings.Contains(strings.ToLower(entries[i]), q) {
			return i
		}
	}
	return -1
}

// startSearch begins a search from the newest entry.
func (m *Model) startSearch() {
	m.search = &promptSearch{at: -1, draft: append([]rune(nil), m.input.value...)}
}

// searchFrom looks for the query from entry from down and shows the
// match; with none, the last match (or the draft) stays and the search
// says it failed.
func (m *Model) searchFrom(from int) {
	s := m.search
	i := findOlder(m.input.history, s.query, from)
	s.failed = i < 0 && s.query != ""
	if i < 0 {
		if s.query == "" {
			s.at = -1
			m.input.set(s.draft)
		}
		return
	}
	s.at = i
	m.input.set([]rune(m.input.history[i]))
}

// endSearch leaves the search: keep holds the match in the input, else
// the draft comes back.
func (m *Model) endSearch(keep bool) {
	if !keep {
		m.input.set(m.search.draft)
	}
	m.input.hist = len(m.input.history)
	m.search = nil
}

// searchKey handles a key during a search. It reports whether the key was
// used; an unused key ended the search (keeping the match) and goes on
// to its usual handling.
func (m *Model) searchKey(k tea.KeyPressMsg) bool {
	s := m.search
	switch k.String() {
	case "ctrl+r":
		if s.at > 0 {
			m.searchFrom(s.at - 1)
		} else if s.at < 0 {
			m.searchFrom(len(m.input.history) - 1)
		} else {
			s.failed = true // no older match
		}
		return true
	case "esc", "ctrl+c", "ctrl+g":
		m.endSearch(false)
		return true
	case "enter":
		m.endSearch(true)
		return true
	case "backspace":
		if s.query != "" {
			_, n := utf8.DecodeLastRuneInString(s.query)
			s.query = s.query[:len(s.query)-n]
			m.searchFrom(len(m.input.history) - 1)
		}
		return true
	}
	if k.Text != "" && k.Mod&^tea.ModShift == 0 {
		if len(s.query)+len(k.Text) <= maxSearchQuery {
			s.query += string(normalize(k.Text))
		}
		from := s.at
		if from < 0 {
			from = len(m.input.history) - 1
		}
		m.searchFrom(from)
		return true
	}
	m.endSearch(true)
	return false
}

// searchLine is the search's line above the input.
func (m *Model) searchLine(width int) string {
	s := m.search
	text := "reverse search: " + human.Printable(s.query)
	if s.failed {
		text += " (no match)"
	}
	return styleDim().Render(truncate(text+" · Ctrl-R older · Enter keeps · Esc restores", width, "…"))
}

package mission

import (
	"strings"
	"testing"
)

func TestFindOlder(t *testing.T) {
	entries := []string{"make test", "git status", "Make build", "echo hi"}
	for _, c := range []struct {
		query string
		from  int
		want  int
	}{
		{"make", 3, 2}, {"make", 1, 0}, {"make", 0, 0}, {"MAKE B", 3, 2},
		{"status", 3, 1}, {"nothing", 3, -1}, {"", 3, -1}, {"echo", 2, -1},
		{"make", 99, 2}, {"make", -1, -1},
	} {
		if got := findOlder(entries, c.query, c.from); got != c.want {
			t.Errorf("findOlder(%q, %d) = %d; want %d", c.query, c.from, got, c.want)
		}
	}
	if findOlder(nil, "x", 0) != -1 {
		t.Error("an empty history matched")
	}
}

// searchModel is a model whose history holds entries, with draft typed.
func searchModel(t *testing.T, draft string, entries ...string) *Model {
	t.Helper()
	m, _, _ := sized(t, 80, 24, Options{})
	for _, e := range entries {
		m.input.AddHistory(e)
	}
	m.input.Reset()
	for _, r := range draft {
		key(m, string(r))
	}
	return m
}

// Ctrl-R, then text: the newest match stands in the input; Ctrl-R again
// the next older; past the oldest the match stays and says so; Backspace
// searches again from the newest; Enter keeps the match without sending;
// Esc, Ctrl-C and Ctrl-G bring the draft back.
func TestReverseSearch(t *testing.T) {
	m := searchModel(t, "my draft", "make test", "git status", "make build", "echo hi")
	key(m, "ctrl+r")
	if !strings.Contains(view(m), "reverse search:") || m.input.Value() != "my draft" {
		t.Fatalf("the search did not start:\n%s", view(m))
	}
	for _, r := range "mak" {
		key(m, string(r))
	}
	if m.input.Value() != "make build" {
		t.Fatalf("first match %q", m.input.Value())
	}
	key(m, "ctrl+r")
	if m.input.Value() != "make test" {
		t.Fatalf("older match %q", m.input.Value())
	}
	key(m, "ctrl+r")
	if m.input.Value() != "make test" || !strings.Contains(view(m), "(no match)") {
		t.Fatalf("past the oldest: %q\n%s", m.input.Value(), view(m))
	}
	key(m, "backspace")
	key(m, "backspace")
	key(m, "backspace")
	key(m, "g")
	if m.input.Value() != "git status" {
		t.Fatalf("after editing the query: %q", m.input.Value())
	}
	cmd := key(m, "enter")
	if cmd != nil || m.search != nil || m.input.Value() != "git status" {
		t.Fatalf("Enter: search %v, input %q", m.search != nil, m.input.Value())
	}
	for _, cancel := range []string{"esc", "ctrl+c", "ctrl+g"} {
		m := searchModel(t, "my draft", "make test")
		key(m, "ctrl+r")
		key(m, "m")
		if m.input.Value() != "make test" {
			t.Fatalf("%s: match %q", cancel, m.input.Value())
		}
		key(m, cancel)
		if m.search != nil || m.input.Value() != "my draft" || m.quitArmed {
			t.Fatalf("%s: search %v, input %q, armed %v", cancel, m.search != nil, m.input.Value(), m.quitArmed)
		}
	}
	// Another key keeps the match and does what it does.
	m = searchModel(t, "", "make test")
	key(m, "ctrl+r")
	key(m, "m")
	key(m, "home")
	key(m, "x")
	if m.search != nil || m.input.Value() != "xmake test" {
		t.Fatalf("after Home: search %v, input %q", m.search != nil, m.input.Value())
	}
	// Nothing typed: the draft stays; a control character typed is not
	// part of the query.
	m = searchModel(t, "draft", "a\x1b]0;x\ab")
	key(m, "ctrl+r")
	if m.input.Value() != "draft" || strings.ContainsRune(view(m), 0x1b) {
		t.Fatalf("empty query: %q", m.input.Value())
	}
}

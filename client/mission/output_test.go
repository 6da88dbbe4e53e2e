package mission

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func ctrlO(m *Model) { m.Update(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}) }

// call sends a shell call's started state, its output in the chunks
// given, and its completed state.
func call(m *Model, id string, chunks []string, truncated bool) {
	send(m, "activity", map[string]any{"activity_id": id, "kind": "tool", "state": "started", "name": "shell", "summary": "shell: started"})
	for i, c := range chunks {
		last := i == len(chunks)-1
		send(m, "activity.output", map[string]any{"activity_id": id, "chunk": i, "text": c, "last": last, "truncated": last && truncated})
	}
	send(m, "activity", map[string]any{"activity_id": id, "kind": "tool", "state": "completed", "name": "shell", "summary": "shell: exit 0"})
}

// TestToolOutputCollapsed: a call's output is shown under its line,
// collapsed to its first lines, each cut to the width, with how much more
// there is; Ctrl-O prints the most recent collapsed output whole (wrapped,
// its control characters visible), then the one before it; a short output
// shows whole and Ctrl-O skips it.
func TestToolOutputCollapsed(t *testing.T) {
	for _, width := range []int{80, 30} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			m, _, _ := started(t, Options{})
			m.Update(tea.WindowSizeMsg{Width: width, Height: 24})
			var long []string
			for i := 1; i <= 10; i++ {
				long = append(long, fmt.Sprintf("line %d %s", i, strings.Repeat("x", 60)))
			}
			// The output comes in two chunks, a chunk boundary inside a line.
			text := strings.Join(long, "\n") + "\x1b]0;title\x07\n"
			call(m, "a1", []string{text[:100], text[100:]}, false)
			call(m, "a2", []string{"short\n"}, false)
			p := printed(m)
			if !strings.Contains(p, "✓ shell exit 0\n  │ line 1 xxx") || !strings.Contains(p, "│ line 4") || strings.Contains(p, "│ line 5") ||
				!strings.Contains(p, map[int]string{80: "│ 6 more lines, Ctrl-O shows all", 30: "│ 6 more lines, Ctrl-O\n"}[width]) || !strings.Contains(p, "│ short") {
				t.Fatalf("collapsed output:\n%s", p)
			}
			for _, l := range strings.Split(p, "\n") {
				if ansi.StringWidth(l) > width {
					t.Fatalf("a line wider than %d: %q", width, l)
				}
			}
			before := len(m.Printed)
			ctrlO(m)
			whole := printed(&Model{Printed: m.Printed[before:]})
			if !strings.Contains(whole, "10 lines") || !strings.Contains(whole, "│ line 10") || !strings.Contains(whole, "␛]0;") || strings.Contains(strings.Join(m.Printed, ""), "\x1b]0;") || strings.Contains(whole, "short") {
				t.Fatalf("Ctrl-O printed:\n%s", whole)
			}
			for _, l := range strings.Split(whole, "\n") {
				if ansi.StringWidth(l) > width {
					t.Fatalf("an expanded line wider than %d: %q", width, l)
				}
			}
			// Nothing more is collapsed: Ctrl-O says so.
			ctrlO(m)
			if last := ansi.Strip(m.Printed[len(m.Printed)-1]); last != "no collapsed tool output to show" {
				t.Fatalf("second Ctrl-O printed %q", last)
			}
		})
	}
}

// TestToolOutputIncomplete: a chunk out of order, or the backend's cut,
// is said under the output; nothing past the protocol's bound is kept.
func TestToolOutputIncomplete(t *testing.T) {
	m, _, _ := started(t, Options{})
	send(m, "activity", map[string]any{"activity_id": "a1", "kind": "tool", "state": "started", "name": "shell", "summary": "shell: started"})
	send(m, "activity.output", map[string]any{"activity_id": "a1", "chunk": 0, "text": "one\n", "last": false, "truncated": false})
	send(m, "activity.output", map[string]any{"activity_id": "a1", "chunk": 2, "text": "three\n", "last": true, "truncated": false})
	send(m, "activity", map[string]any{"activity_id": "a1", "kind": "tool", "state": "completed", "name": "shell", "summary": "shell: exit 0"})
	call(m, "a2", []string{"cut\n"}, true)
	p := printed(m)
	if !strings.Contains(p, "│ one\n  │ (output incomplete)") || strings.Contains(p, "three") || !strings.Contains(p, "│ cut\n  │ (output cut at 16000 bytes)") {
		t.Fatalf("notes:\n%s", p)
	}
	// A denied call's output is its line's reason: said once.
	send(m, "activity", map[string]any{"activity_id": "a3", "kind": "tool", "state": "started", "name": "shell", "summary": "shell: started"})
	send(m, "activity.output", map[string]any{"activity_id": "a3", "chunk": 0, "text": "denied by user", "last": true, "truncated": false})
	send(m, "activity", map[string]any{"activity_id": "a3", "kind": "tool", "state": "failed", "name": "shell", "summary": "shell: denied by user (protected: recursive delete)"})
	if p := printed(m); strings.Count(p, "denied by user") != 1 {
		t.Fatalf("the denial said twice:\n%s", p)
	}
	a := &activity{}
	for i := range 5 {
		a.addOutput(i, strings.Repeat("y", 4000), i == 4, false)
	}
	if a.out.text.Len() != 16000 || !a.out.missing {
		t.Fatalf("kept %d bytes past the bound", a.out.text.Len())
	}
}

// TestPaintColoursOnlyAChange: an edit's or a write's removed ("- ") and
// added ("+ ") lines are coloured apart; its head line, and the lines of
// any other tool's output however they begin, are left as they are.
func TestPaintColoursOnlyAChange(t *testing.T) {
	for _, name := range []string{"edit_file", "write_file"} {
		a := &activity{name: name}
		removed, added := a.paint("- old", "- old"), a.paint("+ new", "+ new")
		if ansi.Strip(removed) != "- old" || ansi.Strip(added) != "+ new" || removed == "- old" || added == "+ new" ||
			strings.Replace(removed, "- old", "", 1) == strings.Replace(added, "+ new", "", 1) {
			t.Errorf("%s: removed %q, added %q; want each coloured, apart", name, removed, added)
		}
		for _, plain := range []string{name + ": 1 replacement", "-old", "+new", "  - old"} {
			if got := a.paint(plain, plain); got != plain {
				t.Errorf("%s: %q painted %q", name, plain, got)
			}
		}
	}
	for _, name := range []string{"shell", "read_file", "grep", ""} {
		a := &activity{name: name}
		for _, line := range []string{"- old", "+ new"} {
			if got := a.paint(line, line); got != line {
				t.Errorf("%s: %q painted %q", name, line, got)
			}
		}
	}
}

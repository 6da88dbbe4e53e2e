package mission

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// namedKeys are the keys tests press by name.
var namedKeys = map[string]tea.KeyPressMsg{
	"left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight}, "up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown},
	"home": {Code: tea.KeyHome}, "end": {Code: tea.KeyEnd}, "backspace": {Code: tea.KeyBackspace},
	"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "tab": {Code: tea.KeyTab},
	"space":  {Code: tea.KeySpace, Text: " "},
	"ctrl+c": {Code: 'c', Mod: tea.ModCtrl}, "ctrl+w": {Code: 'w', Mod: tea.ModCtrl}, "ctrl+u": {Code: 'u', Mod: tea.ModCtrl},
	"ctrl+k": {Code: 'k', Mod: tea.ModCtrl}, "ctrl+a": {Code: 'a', Mod: tea.ModCtrl}, "ctrl+e": {Code: 'e', Mod: tea.ModCtrl},
	"ctrl+j": {Code: 'j', Mod: tea.ModCtrl}, "ctrl+r": {Code: 'r', Mod: tea.ModCtrl}, "ctrl+g": {Code: 'g', Mod: tea.ModCtrl},
}

// press types keys into the editor: a named key, or text rune by rune.
func press(in *editor, keys ...string) {
	for _, k := range keys {
		if msg, ok := namedKeys[k]; ok {
			in.Update(msg)
			continue
		}
		for _, r := range k {
			in.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
}

// A paste keeps its line breaks, whatever the terminal sent for them.
func TestPasteKeepsLineBreaks(t *testing.T) {
	var in editor
	in.Update(tea.PasteMsg{Content: "line one\rline two\r\nline three\nend"})
	if got := in.Value(); got != "line one\nline two\nline three\nend" {
		t.Fatalf("pasted %q", got)
	}
	lines := in.Lines(40, 10)
	if len(lines) != 4 || !strings.Contains(ansi.Strip(lines[2]), "line three") {
		t.Fatalf("the pasted lines are not all shown: %q", lines)
	}
}

// Cursor movement, deletion by word and to the line's ends, new lines.
func TestEditorKeys(t *testing.T) {
	var in editor
	press(&in, "hello world", "left", "left", "left", "left", "left", "big ")
	if in.Value() != "hello big world" {
		t.Fatalf("insert in the middle: %q", in.Value())
	}
	press(&in, "ctrl+w")
	if in.Value() != "hello world" {
		t.Fatalf("Ctrl-W: %q", in.Value())
	}
	press(&in, "ctrl+e", "ctrl+j", "second", "up", "ctrl+a", ">")
	if in.Value() != ">hello world\nsecond" {
		t.Fatalf("new line, up, home: %q", in.Value())
	}
	press(&in, "down", "ctrl+e", "ctrl+u")
	if in.Value() != ">hello world\n" {
		t.Fatalf("down then Ctrl-U: %q", in.Value())
	}
	press(&in, "up", "home", "right", "ctrl+k")
	if in.Value() != ">\n" {
		t.Fatalf("Ctrl-K: %q", in.Value())
	}
}

// Up and Down walk the history and come back to the draft.
func TestEditorHistory(t *testing.T) {
	var in editor
	in.AddHistory("first prompt")
	in.AddHistory("second prompt")
	in.Reset()
	press(&in, "draft", "up")
	if in.Value() != "second prompt" {
		t.Fatalf("Up: %q", in.Value())
	}
	press(&in, "up", "up")
	if in.Value() != "first prompt" {
		t.Fatalf("Up twice more: %q", in.Value())
	}
	press(&in, "down", "down")
	if in.Value() != "draft" {
		t.Fatalf("back down to the draft: %q", in.Value())
	}
}

// Text wider than the screen wraps; the cursor's line stays in view when
// the input is taller than its room.
func TestEditorWraps(t *testing.T) {
	in := editor{Prompt: "› "}
	text := strings.Repeat("abcdefghij", 12) + "TAIL"
	press(&in, text)
	lines := in.Lines(30, 3)
	if len(lines) != 3 {
		t.Fatalf("%d lines; want the 3 of the room", len(lines))
	}
	var all strings.Builder
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 30 {
			t.Fatalf("a line of %d columns: %q", w, ansi.Strip(l))
		}
		all.WriteString(ansi.Strip(l))
	}
	if !strings.Contains(all.String(), "TAIL") {
		t.Fatalf("the cursor's line (the end) is not shown: %q", lines)
	}
	full := in.Lines(30, 100)
	var joined strings.Builder
	for i, l := range full {
		s := ansi.Strip(l)
		if i == 0 {
			s = strings.TrimPrefix(s, "› ")
		} else {
			s = strings.TrimPrefix(s, "  ")
		}
		joined.WriteString(s)
	}
	if strings.TrimSpace(joined.String()) != text {
		t.Fatalf("the wrapped text is not the text:\n%q\n%q", joined.String(), text)
	}
}

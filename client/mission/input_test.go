package mission

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func press(in *editor, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "left":
			msg = tea.KeyPressMsg{Code: tea.KeyLeft}
		case "right":
			msg = tea.KeyPressMsg{Code: tea.KeyRight}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "home":
			msg = tea.KeyPressMsg{Code: tea.KeyHome}
		case "end":
			msg = tea.KeyPressMsg{Code: tea.KeyEnd}
		case "backspace":
			msg = tea.KeyPressMsg{Code: tea.KeyBackspace}
		case "ctrl+w", "ctrl+u", "ctrl+k", "ctrl+a", "ctrl+e", "ctrl+j":
			msg = tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
		default:
			for _, r := range k {
				in.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		in.Update(msg)
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

package acp

import (
	"reflect"
	"testing"

	"github.com/magi-code/magi-code/runner"
)

// TestCompactCommand: the prompt is the built-in when it is /compact,
// after white space, alone or followed by white space and instructions.
func TestCompactCommand(t *testing.T) {
	for _, tt := range []struct {
		prompt, instructions string
		ok                   bool
	}{
		{"/compact", "", true},
		{"/compact\n", "", true},
		{" \n/compact  keep names \n", "keep names", true},
		{"/compact\tfocus", "focus", true},
		{"/compact\u00a0focus", "focus", true},
		{"/compactor", "", false},
		{"/compact/x", "", false},
		{"please /compact", "", false},
		{"compact", "", false},
		{"/Compact", "", false},
		{"", "", false},
	} {
		got, ok := compactCommand(tt.prompt)
		if got != tt.instructions || ok != tt.ok {
			t.Errorf("compactCommand(%q) = %q, %v; want %q, %v", tt.prompt, got, ok, tt.instructions, tt.ok)
		}
	}
}

// TestCommandsUpdate: the built-in compact comes first; a skill of the
// same name is left out, the others follow in order.
func TestCommandsUpdate(t *testing.T) {
	u := commandsUpdate([]runner.SkillInfo{{Name: "review"}, {Name: "compact", Description: "shadow"}, {Name: "ship"}})
	var names []string
	for _, c := range u["availableCommands"].([]obj) {
		names = append(names, c["name"].(string))
	}
	if want := []string{"compact", "review", "ship"}; !reflect.DeepEqual(names, want) {
		t.Errorf("commands %q; want %q", names, want)
	}
}

package acp

import (
	"reflect"
	"testing"

	"github.com/magi-code/magi-code/runner"
)

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

package runner

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/tools"
)

// Skills load progressively (docs/configuration.md, Skills): the system
// context lists each enabled skill's name and description, and the model
// calls the skill tool with a name to read that skill's instructions when
// it uses it. The body is read from disk at that moment under the same
// rules as at startup (config.ReadSkill): a project skill must still
// resolve inside the workspace, never to a credential file or under /proc.

// SkillToolName is the name the model calls the skill tool by.
const SkillToolName = "skill"

// skillTool hands the model one skill's instructions by name.
type skillTool struct {
	skills []config.Skill
	logf   func(string, ...any)
}

func newSkillTool(skills []config.Skill, logf func(string, ...any)) *skillTool {
	return &skillTool{skills: skills, logf: logf}
}

func (t *skillTool) Name() string { return SkillToolName }

func (t *skillTool) Description() string {
	return "Load a skill: its instructions and the directory of its files. Call it with the name of a skill " +
		"listed in the system context before doing a task that skill describes, then follow what it says."
}

func (t *skillTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"the skill's name, as listed"}},"required":["name"],"additionalProperties":false}`)
}

// Mutating: reading a skill changes nothing.
func (t *skillTool) Mutating() bool { return false }

func (t *skillTool) Describe(args json.RawMessage) string {
	var a struct{ Name string }
	_ = json.Unmarshal(args, &a)
	if s := t.find(a.Name); s != nil {
		return "load skill " + s.Name
	}
	return "load a skill"
}

func (t *skillTool) find(name string) *config.Skill {
	for i := range t.skills {
		if t.skills[i].Name == name {
			return &t.skills[i]
		}
	}
	return nil
}

func (t *skillTool) Run(ctx context.Context, args json.RawMessage) tools.Result {
	var a struct {
		Name string `json:"name"`
	}
	if len(strings.TrimSpace(string(args))) > 0 {
		if err := json.Unmarshal(args, &a); err != nil {
			return t.fail("the arguments are not {\"name\": \"SKILL\"}", "bad arguments")
		}
	}
	s := t.find(a.Name)
	if s == nil {
		names := make([]string, len(t.skills))
		for i, s := range t.skills {
			names[i] = s.Name
		}
		return t.fail("no skill has that name; the skills are: "+strings.Join(names, ", "), "unknown skill")
	}
	body, err := config.ReadSkill(*s)
	if err != nil {
		t.logf("skill %s (%s): %v", s.Name, s.Path, err)
		return t.fail("the skill "+s.Name+" could not be read; `magi-code config show` says why", "unreadable")
	}
	text := "Skill " + s.Name + " (its files are in " + filepath.Dir(s.Path) + ")\n\n" + body
	return tools.Result{Text: tools.Clip(text, tools.DefaultMaxOutput), Summary: "skill: loaded " + s.Name}
}

func (t *skillTool) fail(text, summary string) tools.Result {
	return tools.Result{Text: text, IsError: true, Summary: "skill: " + summary}
}

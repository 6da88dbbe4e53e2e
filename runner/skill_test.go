package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newSkillRuntime admits and builds a runtime over an MC_HOME holding
// settings (more appended to the fixture's) and files (relative to the
// cwd).
func newSkillRuntime(t *testing.T, settings string, files map[string]string) *Runtime {
	t.Helper()
	home, cwd := t.TempDir(), t.TempDir()
	files["HOME/settings.toml"] = "provider = \"fixture\"\nmodel = \"fixture-model\"\n" + settings
	for rel, text := range files {
		p := filepath.Join(cwd, rel)
		if r, ok := strings.CutPrefix(rel, "HOME/"); ok {
			p = filepath.Join(home, r)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	adm, code := Admit(t.Context(), Env{Home: home, MCHome: home, Cwd: cwd})
	if code != "" {
		t.Fatalf("Admit = %q", code)
	}
	rt, code := New(t.Context(), adm, Options{})
	if code != "" {
		t.Fatalf("New = %q", code)
	}
	t.Cleanup(func() { rt.Close(t.Context()) })
	return rt
}

// The skill tool hands over a skill's body by name, without its front
// matter; an unknown name or bad arguments get a fixed answer listing the
// skills. The system context lists names and descriptions, never bodies.
func TestSkillTool(t *testing.T) {
	rt := newSkillRuntime(t, "", map[string]string{
		".magi-code/skills/lint/SKILL.md": "---\ndescription: Checks style\nlicense: MIT\n---\nLINT-BODY\n",
		"HOME/skills/ship/SKILL.md":       "SHIP-BODY\n",
	})
	system := strings.Join(rt.system, "\n")
	if !strings.Contains(system, "- lint: Checks style") || !strings.Contains(system, "- ship") || strings.Contains(system, "BODY") {
		t.Errorf("system context:\n%s", system)
	}
	tool, ok := rt.tools.Get(SkillToolName)
	if !ok || tool.Mutating() {
		t.Fatalf("skill tool offered %v; want a read-only tool", ok)
	}
	for _, tc := range []struct {
		args, want string
		isErr      bool
	}{
		{`{"name":"lint"}`, "LINT-BODY", false},
		{`{"name":"ship"}`, "SHIP-BODY", false},
		{`{"name":"nope"}`, "the skills are: lint, ship", true},
		{`{"name":"../lint"}`, "the skills are: lint, ship", true},
		{`[1]`, `{"name": "SKILL"}`, true},
	} {
		r := tool.Run(t.Context(), json.RawMessage(tc.args))
		if r.IsError != tc.isErr || !strings.Contains(r.Text, tc.want) || strings.Contains(r.Text, "license") {
			t.Errorf("skill %s = %+v; want error %v and %q", tc.args, r, tc.isErr, tc.want)
		}
	}
}

// Where the skill tool is not offered (a primary profile's tools list
// leaves it out, or [tools] disabled names it), the skills are not listed
// either: the model could not load them.
func TestSkillsListedOnlyWithTheTool(t *testing.T) {
	for name, setup := range map[string]struct {
		settings string
		files    map[string]string
	}{
		"profile":  {"agent = \"lead\"\n", map[string]string{"HOME/agents/lead.md": "---\ndescription: d\nmode: primary\ntools: [read_file]\n---\nLEAD\n"}},
		"disabled": {"[tools]\ndisabled = [\"skill\"]\n", map[string]string{}},
	} {
		setup.files["HOME/skills/ship/SKILL.md"] = "---\ndescription: SHIPS\n---\nbody"
		rt := newSkillRuntime(t, setup.settings, setup.files)
		if _, ok := rt.tools.Get(SkillToolName); ok {
			t.Errorf("%s: the skill tool is offered", name)
		}
		if s := strings.Join(rt.system, "\n"); strings.Contains(s, "SHIPS") {
			t.Errorf("%s: skills listed without the tool:\n%s", name, s)
		}
	}
}

// Code Mode calls the skill tool when [tools.code_mode] allow names it.
func TestSkillFromCodeMode(t *testing.T) {
	rt := newSkillRuntime(t, "[tools.code_mode]\nenabled = true\nallow = [\"skill\"]\n", map[string]string{
		".magi-code/skills/lint/SKILL.md": "LINT-BODY\n",
	})
	runCode, ok := rt.tools.Get("run_code")
	if !ok {
		t.Fatal("run_code not offered")
	}
	r := runCode.Run(t.Context(), json.RawMessage(`{"code":"return tools.skill({name: 'lint'})"}`))
	if r.IsError || !strings.Contains(r.Text, "LINT-BODY") {
		t.Errorf("run_code calling skill = %+v; want the body", r)
	}
}

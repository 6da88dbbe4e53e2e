package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/protocol"
)

// skillNames lists a snapshot's skills as name:source:description.
func skillNames(snap *Snapshot) []string {
	var out []string
	for _, s := range snap.Skills {
		out = append(out, s.Name+":"+s.Source+":"+s.Description)
	}
	return out
}

// problemAt reports whether a problem names a file ending in suffix (and
// the line, when line > 0).
func problemAt(problems []Problem, suffix string, line int) bool {
	for _, p := range problems {
		if strings.HasSuffix(p.Path, suffix) && (line == 0 || p.Line == line) {
			return true
		}
	}
	return false
}

// A SKILL.md as Claude Code and the Agent Skills format write it loads:
// folded description, name, license, allowed-tools and a metadata block.
// A skill that does not parse is skipped with its file and line; the
// others load and the start-up stays ready.
func TestClaudeStyleSkills(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	w.write(t, "cwd/.magi-code/skills/pdf/SKILL.md", `---
name: pdf
description: >-
  Extracts text and tables
  from PDF files.
license: Apache-2.0
allowed-tools: Read Grep Bash(python:*)
metadata:
  version: "1.2"
  authors:
    - someone
---
# PDF

Body.
`, 0o644)
	w.write(t, "cwd/.magi-code/skills/broken/SKILL.md", "---\nname: broken\ndescription: [unclosed\n---\nbody\n", 0o644)
	w.write(t, "home/skills/shape/SKILL.md", "---\ndescription:\n  nested: map\n---\nbody\n", 0o644)
	w.write(t, "home/skills/unclosed/SKILL.md", "---\ndescription: x\nbody\n", 0o644)
	snap, code := w.load(t)
	if code != "" {
		t.Fatalf("Load = %q; want ready (one bad skill never brings the agent down)", code)
	}
	if got, want := skillNames(snap), []string{"pdf:project:Extracts text and tables from PDF files."}; !slices.Equal(got, want) {
		t.Fatalf("skills = %q; want %q", got, want)
	}
	body, err := ReadSkill(snap.Skills[0])
	if err != nil || body != "# PDF\n\nBody.\n" {
		t.Errorf("ReadSkill = %q, %v; want the body without front matter", body, err)
	}
	for _, want := range []struct {
		suffix string
		line   int
	}{{"broken/SKILL.md", 2}, {"shape/SKILL.md", 3}, {"unclosed/SKILL.md", 1}} {
		if !problemAt(snap.Problems, want.suffix, want.line) {
			t.Errorf("no problem for %s at line %d: %v", want.suffix, want.line, snap.Problems)
		}
	}
}

// Skills come from ~/.claude/skills, $MC_HOME/skills, <cwd>/.claude/skills
// and <cwd>/.magi-code/skills; on a name collision the later wins (project
// over global, .magi-code over .claude); disabled names are dropped from
// every root; a description is folded to one line and bounded.
func TestSkillRoots(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal+"[skills]\ndisabled = [\"off\"]\n", 0o644)
	skill := func(rel, desc string) {
		w.write(t, rel+"/SKILL.md", "---\ndescription: "+desc+"\n---\nbody of "+rel+"\n", 0o644)
	}
	skill(".claude/skills/a", "claude-global") // Env.Home is w.root
	skill(".claude/skills/b", "claude-global")
	skill(".claude/skills/c", "claude-global")
	skill(".claude/skills/off", "claude-global")
	skill("home/skills/b", "mc-global")
	skill("home/skills/c", "mc-global")
	skill("cwd/.claude/skills/c", "claude-project")
	skill("cwd/.claude/skills/d", "claude-project")
	skill("cwd/.magi-code/skills/d", "mc-project")
	skill("cwd/.claude/skills/long", strings.Repeat("word ", 400))
	snap, code := w.load(t)
	if code != "" {
		t.Fatalf("Load = %q", code)
	}
	want := []string{"a:global:claude-global", "b:global:mc-global", "c:project:claude-project", "d:project:mc-project"}
	got := skillNames(snap)
	if len(got) != 5 || !slices.Equal(got[:4], want) || !strings.HasPrefix(got[4], "long:project:word word") {
		t.Fatalf("skills = %q; want %q then long", got, want)
	}
	if d := snap.Skills[4].Description; len(d) > MaxDescriptionBytes || !strings.HasSuffix(d, "…") || strings.Contains(d, "  ") {
		t.Errorf("a long description is %d bytes %q; want at most %d, one line, marked", len(d), d[len(d)-8:], MaxDescriptionBytes)
	}
}

// The property: a project's skills, profiles, AGENTS.md and listed
// instruction files are read only when they resolve inside the workspace
// (symlinks and .. followed), global ones inside MC_HOME; nothing under
// /proc, /sys or /dev and no credential file is read as one, wherever the
// link comes from. Each refused file is skipped with a problem naming it,
// and the start-up stays ready. The canaries live outside the temp
// directory.
func TestDocumentsStayInScope(t *testing.T) {
	outside := ostest.OutsideTemp(t)
	const canary = "CANARY-SECRET-4f1d"
	for _, f := range []string{"notes.md", "skills/x/SKILL.md", "agents/x.md", ".aws/credentials", "id_rsa.md", ".ssh/keys.md", "proj-old/a.md"} {
		p := filepath.Join(outside, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\ndescription: "+canary+"\nmode: primary\n---\n"+canary+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	type link struct{ at, to string } // at: a world path; to: absolute, or relative to at's directory
	o := func(rel string) string { return filepath.Join(outside, rel) }
	t.Setenv("MAGI_DOCUMENT_CANARY", canary) // what /proc/self/environ would hand over
	cases := []struct {
		name    string
		links   []link
		project string // project settings
		global  string // more global settings
		problem string // suffix of the path the problem names
		// cwdOutside: the workspace is outside/proj, beside outside/proj-old
		// whose name merely starts with it.
		cwdOutside bool
	}{
		{name: "skill to /proc/self/environ", links: []link{{"cwd/.magi-code/skills/k/SKILL.md", "/proc/self/environ"}}, problem: "k/SKILL.md"},
		{name: "skill to /proc by .. spelling", links: []link{{"cwd/.magi-code/skills/k/SKILL.md", "/proc/./self/../self/environ"}}, problem: "k/SKILL.md"},
		{name: "skill to /proc through /dev/fd", links: []link{{"cwd/.magi-code/skills/k/SKILL.md", "/dev/fd/../../proc/self/status"}}, problem: "k/SKILL.md"},
		{name: "skill to ~/.aws/credentials", links: []link{{"cwd/.magi-code/skills/k/SKILL.md", o(".aws/credentials")}}, problem: "k/SKILL.md"},
		{name: "skill to an outside Markdown file", links: []link{{"cwd/.magi-code/skills/k/SKILL.md", o("notes.md")}}, problem: "k/SKILL.md"},
		{name: "skill directory linked outside", links: []link{{"cwd/.magi-code/skills/x", o("skills/x")}}, problem: "x/SKILL.md"},
		{name: "claude skill by relative ..", links: []link{{"cwd/.claude/skills/k/SKILL.md", "../../../../../../../../../../../../../../.." + o("notes.md")}}, problem: "k/SKILL.md"},
		{name: "skills directory linked outside", links: []link{{"cwd/.magi-code/skills", o("skills")}}, problem: "x/SKILL.md"},
		{name: "skill to a name prefixed like the cwd", links: []link{{"cwd/.magi-code/skills/k/SKILL.md", o("proj-old/a.md")}}, problem: "k/SKILL.md", cwdOutside: true},
		{name: "skill to a key named .md", links: []link{{"cwd/.magi-code/skills/k/SKILL.md", o("id_rsa.md")}}, problem: "k/SKILL.md"},
		{name: "skill into .ssh", links: []link{{"cwd/.magi-code/skills/k/SKILL.md", o(".ssh/keys.md")}}, problem: "k/SKILL.md"},
		{name: "project skill into MC_HOME", links: []link{{"cwd/.magi-code/skills/k/SKILL.md", "home/notes.md"}}, problem: "k/SKILL.md"},
		{name: "global skill to /proc", links: []link{{"home/skills/k/SKILL.md", "/proc/self/environ"}}, problem: "k/SKILL.md"},
		{name: "global skill outside MC_HOME", links: []link{{"home/skills/k/SKILL.md", o("notes.md")}}, problem: "k/SKILL.md"},
		{name: "profile outside", links: []link{{"cwd/.magi-code/agents/x.md", o("agents/x.md")}}, problem: "agents/x.md"},
		{name: "global profile to /proc", links: []link{{"home/agents/x.md", "/proc/self/environ"}}, problem: "agents/x.md"},
		{name: "AGENTS.md outside", links: []link{{"cwd/AGENTS.md", o("notes.md")}}, problem: "work/AGENTS.md"},
		{name: "AGENTS.md to /proc", links: []link{{"cwd/AGENTS.md", "/proc/self/environ"}}, problem: "work/AGENTS.md"},
		{name: "AGENTS.md to credentials", links: []link{{"cwd/AGENTS.md", o(".aws/credentials")}}, problem: "work/AGENTS.md"},
		{name: "global AGENTS.md outside MC_HOME", links: []link{{"home/AGENTS.md", o("notes.md")}}, problem: "mchome/AGENTS.md"},
		{name: "project instructions absolute", project: "instructions = [" + quote(o("notes.md")) + "]\n", problem: "notes.md"},
		{name: "project instructions by ..", project: "instructions = [\"../../../../../../../../../../../../../../.." + o("notes.md") + "\"]\n", problem: "notes.md"},
		{name: "project instructions by ~", project: "instructions = [\"~/proc-link.md\"]\n", links: []link{{"proc-link.md", "/proc/self/environ"}}, problem: "proc-link.md"},
		{name: "project instructions link", project: "instructions = [\"rules.md\"]\n", links: []link{{"cwd/.magi-code/rules.md", o("notes.md")}}, problem: "rules.md"},
		{name: "global instructions to /proc", global: "instructions = [\"/proc/self/environ\"]\n", problem: "environ"},
		{name: "global instructions to credentials", global: "instructions = [" + quote(o(".aws/credentials")) + "]\n", problem: "credentials"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			if tc.cwdOutside {
				w.cwd = o("proj")
				if err := os.MkdirAll(w.cwd, 0o755); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(w.cwd) })
			}
			w.write(t, "home/settings.toml", fixtureGlobal+tc.global, 0o644)
			w.write(t, "home/notes.md", "---\ndescription: "+canary+"\n---\n"+canary, 0o644)
			if tc.project != "" {
				w.write(t, "cwd/.magi-code/settings.toml", tc.project, 0o644)
			}
			for _, l := range tc.links {
				at := w.path(l.at)
				to := l.to
				if strings.HasPrefix(to, "home/") {
					to = w.path(to)
				}
				if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(to, at); err != nil {
					t.Fatal(err)
				}
			}
			snap, code := w.load(t)
			if code != "" {
				t.Fatalf("Load = %q; want ready, the file skipped (problems %v)", code, snap.Problems)
			}
			var seen []string
			for _, d := range snap.Instructions {
				seen = append(seen, d.Text)
			}
			for _, s := range snap.Skills {
				seen = append(seen, s.Description)
				if body, err := ReadSkill(s); err == nil {
					seen = append(seen, body)
				}
			}
			for _, p := range append(slices.Clone(snap.Subagents), derefAgent(snap.Agent)...) {
				seen = append(seen, p.Description, p.Prompt)
			}
			for _, s := range seen {
				if strings.Contains(s, canary) {
					t.Fatalf("a refused file was read: %q", s)
				}
			}
			if !problemAt(snap.Problems, tc.problem, 0) {
				t.Errorf("no problem names %s: %v", tc.problem, snap.Problems)
			}
		})
	}
}

func quote(s string) string { return `"` + s + `"` }

func derefAgent(p *Profile) []Profile {
	if p == nil {
		return nil
	}
	return []Profile{*p}
}

// Files inside their scope still load through links: an AGENTS.md that
// links to CLAUDE.md beside it, a skill directory linked within the
// workspace, MC_HOME's AGENTS.md linked to a file in MC_HOME.
func TestDocumentsLinkedInsideScope(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	w.write(t, "cwd/CLAUDE.md", "project rules", 0o644)
	w.write(t, "home/rules/global.md", "global rules", 0o644)
	w.write(t, "cwd/tools/skills/lint/SKILL.md", "---\ndescription: lints\n---\nlint body", 0o644)
	for at, to := range map[string]string{"cwd/AGENTS.md": "CLAUDE.md", "home/AGENTS.md": "rules/global.md", "cwd/.magi-code/skills/lint": "../../tools/skills/lint"} {
		if err := os.MkdirAll(filepath.Dir(w.path(at)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, w.path(at)); err != nil {
			t.Fatal(err)
		}
	}
	snap, code := w.load(t)
	if code != "" || len(snap.Problems) != 0 {
		t.Fatalf("Load = %q, problems %v", code, snap.Problems)
	}
	var texts []string
	for _, d := range snap.Instructions {
		texts = append(texts, d.Text)
	}
	if want := []string{"global rules", "project rules"}; !slices.Equal(texts, want) {
		t.Errorf("instructions = %q; want %q", texts, want)
	}
	if got := skillNames(snap); !slices.Equal(got, []string{"lint:project:lints"}) {
		t.Errorf("skills = %q", got)
	}
}

// The skill tool's read decides again: a SKILL.md swapped after start-up
// for a link to a file outside the workspace, to a credential file or to
// /proc is refused.
func TestReadSkillDecidesAgain(t *testing.T) {
	outside := ostest.OutsideTemp(t)
	secret := filepath.Join(outside, "secret.md")
	if err := os.WriteFile(secret, []byte("CANARY-7e2a"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{secret, "/proc/self/environ", filepath.Join(outside, ".aws", "credentials")} {
		w := newWorld(t)
		w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
		w.write(t, "cwd/.magi-code/skills/k/SKILL.md", "body", 0o644)
		snap, code := w.load(t)
		if code != "" || len(snap.Skills) != 1 {
			t.Fatalf("Load = %q, %d skills", code, len(snap.Skills))
		}
		if body, err := ReadSkill(snap.Skills[0]); err != nil || body != "body" {
			t.Fatalf("ReadSkill = %q, %v", body, err)
		}
		p := w.path("cwd/.magi-code/skills/k/SKILL.md")
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
		if body, err := ReadSkill(snap.Skills[0]); err == nil || strings.Contains(body, "CANARY") {
			t.Errorf("ReadSkill through a link to %s = %q, %v; want refused", to, body, err)
		}
	}
}

// AGENTS.md files are read from the repository root (the nearest
// directory holding .git, a directory or a worktree's file) down to the
// cwd, in that order; none above the root; without a repository only the
// cwd's. Project settings stay exact-cwd.
func TestAgentsFromRepositoryRoot(t *testing.T) {
	for _, gitFile := range []bool{false, true} {
		w := newWorld(t)
		w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
		w.write(t, "AGENTS.md", "ABOVE", 0o644) // w.root, above the repository
		w.write(t, "repo/AGENTS.md", "ROOT", 0o644)
		w.write(t, "repo/a/AGENTS.md", "A", 0o644)
		w.write(t, "repo/a/b/AGENTS.md", "B", 0o644)
		w.write(t, "repo/a/.magi-code/settings.toml", "model = \"parent-model\"\n", 0o644)
		if gitFile {
			w.write(t, "repo/.git", "gitdir: /elsewhere\n", 0o644)
		} else if err := os.MkdirAll(w.path("repo/.git"), 0o755); err != nil {
			t.Fatal(err)
		}
		env := w.env()
		env.Cwd = w.path("repo/a/b")
		snap, code := Load(t.Context(), env)
		if code != "" {
			t.Fatalf("Load = %q (%v)", code, snap.Problems)
		}
		var texts []string
		for _, d := range snap.Instructions {
			texts = append(texts, d.Text)
		}
		if want := []string{"ROOT", "A", "B"}; !slices.Equal(texts, want) {
			t.Errorf(".git file %v: instructions = %q; want %q", gitFile, texts, want)
		}
		if snap.Model == "parent-model" {
			t.Errorf("a parent directory's project settings were read")
		}
	}
	// No repository: the cwd's alone.
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	w.write(t, "AGENTS.md", "ABOVE", 0o644)
	w.write(t, "cwd/AGENTS.md", "CWD", 0o644)
	snap, code := w.load(t)
	if code != "" || len(snap.Instructions) != 1 || snap.Instructions[0].Text != "CWD" {
		t.Errorf("without a repository: %q, %+v; want the cwd's AGENTS.md alone", code, snap.Instructions)
	}
	if got := agentsDirs("/"); !slices.Equal(got, []string{"/"}) {
		t.Errorf("agentsDirs(/) = %q", got)
	}
}

// kernelFS tells a /proc file from an ordinary one by its file system,
// whatever its path.
func TestKernelFS(t *testing.T) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc here")
	}
	defer f.Close()
	if !kernelFS(f) {
		t.Error("kernelFS(/proc/self/status) = false")
	}
	g, err := os.Open("documents_test.go")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if kernelFS(g) {
		t.Error("kernelFS(an ordinary file) = true")
	}
}

// config show lists the instruction files, the skills with their source
// and file, and each problem with its file and line; a failed start-up
// names its reason.
func TestDescribeListsDocuments(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	w.write(t, "cwd/AGENTS.md", "rules", 0o644)
	w.write(t, "cwd/.claude/skills/pdf/SKILL.md", "---\ndescription: >-\n  reads PDFs\n---\n", 0o644)
	w.write(t, "home/skills/bad/SKILL.md", "---\nname: bad\ndescription: \"x\n---\n", 0o644)
	d, err := Describe(w.env())
	if err != nil {
		t.Fatal(err)
	}
	text := d.Text()
	for _, want := range []string{
		"instructions ~/work/AGENTS.md  source=project\n", // Env.Home is the world's root
		"skill pdf  source=project  ~/work/.claude/skills/pdf/SKILL.md\n",
		"# problem: ~/mchome/skills/bad/SKILL.md:3: skill skipped: front matter is not valid YAML",
		"# readiness: ready\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("config show lacks %q:\n%s", want, text)
		}
	}
	w.write(t, "home/settings.toml", fixtureGlobal+"agent = \"boss\"\n", 0o644)
	d, err = Describe(w.env())
	if err != nil {
		t.Fatal(err)
	}
	if text := d.Text(); d.Readiness != protocol.CodeProfileInvalid || !strings.Contains(text, `agent "boss": selected agent not found or disabled`) {
		t.Errorf("config show of a missing agent:\n%s", text)
	}
}

// scope.check, rule by rule, on paths that need not exist: each rule
// refuses on its own, and a name that merely starts with the root's is
// outside it.
func TestScopeCheck(t *testing.T) {
	project := scope{root: "/w/proj", mcHome: "/h/.magi-code"}
	global := scope{root: "/h/.magi-code"}
	anywhere := scope{root: "/"}
	for _, tc := range []struct {
		s           scope
		path, canon string
		want        error
	}{
		{project, "/w/proj/a.md", "/w/proj/a.md", nil},
		{project, "/w/proj/d/SKILL.md", "/w/proj/e/SKILL.MD", nil},
		{project, "/w/proj/a.md", "/w/proj-old/a.md", outsideError{"/w/proj"}},
		{project, "/w/proj/a.md", "/w/a.md", outsideError{"/w/proj"}},
		{project, "/w/proj/a.md", "/proc/1/environ.md", errSystemFile},
		{project, "/w/proj/a.md", "/proc", errSystemFile},
		{anywhere, "/x/a.md", "/sys/kernel/notes.md", errSystemFile},
		{anywhere, "/x/a.md", "/dev/shm/a.md", errSystemFile},
		{anywhere, "/x/a.md", "/process/a.md", nil},
		{anywhere, "/x/a.md", "/home/u/.ssh/notes.md", errCredentialFile},
		{anywhere, "/x/a.md", "/home/u/.aws/credentials", errCredentialFile},
		{anywhere, "/x/.env", "/x/a.md", errCredentialFile},
		{anywhere, "/x/a.md", "/x/a.txt", errNotMarkdown},
		{project, "/w/proj/a.md", "/h/.magi-code/AGENTS.md", errInMCHome},
		{global, "/h/.magi-code/AGENTS.md", "/h/.magi-code/rules/a.md", nil},
		{global, "/h/.magi-code/AGENTS.md", "/h/notes.md", outsideError{"/h/.magi-code"}},
	} {
		if got := tc.s.check(tc.path, tc.canon); got != tc.want {
			t.Errorf("%+v.check(%s -> %s) = %v; want %v", tc.s, tc.path, tc.canon, got, tc.want)
		}
	}
}

// readDocument refuses a file its file system says is a kernel view, after
// the open, whatever its path said.
func TestReadDocumentAsksTheFileSystem(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.md")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readDocument(p, scope{root: "/"}); err != nil {
		t.Fatalf("readDocument: %v", err)
	}
	onKernelFS = func(*os.File) bool { return true }
	defer func() { onKernelFS = kernelFS }()
	if _, _, err := readDocument(p, scope{root: "/"}); err != errSpecialFS {
		t.Errorf("readDocument on a kernel file system = %v; want errSpecialFS", err)
	}
}

// A project file hard-linked to a file elsewhere (no path check can see
// where the other name is) is refused; a global one is not.
func TestHardLinkedProjectFileRefused(t *testing.T) {
	outside := ostest.OutsideTemp(t)
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	secret := filepath.Join(outside, "secret.md")
	if err := os.WriteFile(secret, []byte("---\ndescription: CANARY-hl\n---\nCANARY-hl"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{"cwd/.magi-code/skills/k/SKILL.md", "cwd/AGENTS.md"} {
		if err := os.MkdirAll(filepath.Dir(w.path(at)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(secret, w.path(at)); err != nil {
			t.Skipf("no hard link across %s and the world: %v", outside, err)
		}
	}
	w.write(t, "home/skills/g/SKILL.md", "global", 0o644)
	if err := os.Link(w.path("home/skills/g/SKILL.md"), w.path("home/g-copy.md")); err != nil {
		t.Fatal(err)
	}
	snap, code := w.load(t)
	if code != "" || len(snap.Instructions) != 0 || len(skillNames(snap)) != 1 || snap.Skills[0].Name != "g" {
		t.Fatalf("Load = %q, instructions %d, skills %q; want the global skill alone", code, len(snap.Instructions), skillNames(snap))
	}
	if !problemAt(snap.Problems, "k/SKILL.md", 0) || !problemAt(snap.Problems, "work/AGENTS.md", 0) {
		t.Errorf("problems %v; want the two hard links named", snap.Problems)
	}
}

// An AGENTS.md that cannot be read (here a FIFO) is skipped with a
// problem; a listed instructions path that cannot be read fails the load.
func TestUnreadableAgentsSkipped(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", fixtureGlobal, 0o644)
	ostest.Fifo(t, w.path("cwd/AGENTS.md"))
	snap, code := w.load(t)
	if code != "" || len(snap.Instructions) != 0 || !problemAt(snap.Problems, "work/AGENTS.md", 0) {
		t.Errorf("Load = %q, %d instructions, problems %v; want ready, AGENTS.md skipped and named", code, len(snap.Instructions), snap.Problems)
	}
	w.write(t, "home/settings.toml", fixtureGlobal+"instructions = [\"../work/AGENTS.md\"]\n", 0o644)
	if _, code := w.load(t); code != protocol.CodeConfigurationInvalid {
		t.Errorf("Load with the FIFO listed = %q; want configuration_invalid", code)
	}
}

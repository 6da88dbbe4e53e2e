package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/magi-code/magi-code/protocol"
)

// Document is one instruction file, in the order the model sees them.
type Document struct {
	Path   string // canonical path (never sent on the wire)
	Source string // global | project | settings
	Text   string
}

// Skill is one SKILL.md: its directory name is its name. Only its name and
// description are kept: the model sees them up front and loads the body
// with the skill tool (ReadSkill), when it uses the skill.
type Skill struct {
	Name        string
	Description string // from front matter, "" when absent
	Path        string // canonical path of SKILL.md (never sent on the wire)
	Source      string // global | project
	scope       scope  // where Path may resolve when it is read again
}

// Profile is one agent profile: a Markdown file whose front matter says what
// the agent is and whose body is its prompt.
type Profile struct {
	Name        string
	Description string
	Mode        string // primary | subagent
	Tools       []string
	Model       string
	Path        string
	Source      string // global | project
	Prompt      string
}

// Problem is one file that loading skipped or refused, or the reason it
// failed, for a person: `magi-code config show` and the diagnostic log
// print it. It may name paths; it never goes on the wire.
type Problem struct {
	Path   string // as found, ~ for the home directory
	Line   int    // 0: the file as a whole
	Reason string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Reason)
	}
	return p.Path + ": " + p.Reason
}

// MaxDescriptionBytes bounds a skill's description in the system context
// (the Agent Skills format allows 1024 characters).
const MaxDescriptionBytes = 1024

// loader reads the files that steer the model for one load, collecting
// the problems it meets.
type loader struct {
	env       *Env
	home, cwd string // canonical MC_HOME and cwd
	problems  []Problem
}

// problem records (and logs) that path was skipped or failed, and why.
func (l *loader) problem(path string, err error) {
	p := Problem{Path: displayPath(path, l.env.Home), Line: lineOf(err), Reason: reason(err)}
	l.env.logf("config: %s", p)
	l.problems = append(l.problems, p)
}

// reason is err in words, without the path a *fs.PathError repeats.
func reason(err error) string {
	var le *lineError
	if errors.As(err, &le) {
		// The line goes in Problem.Line; the words around it stay.
		return strings.Replace(err.Error(), le.Error(), le.msg, 1)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

// project is the scope of a project file: inside the workspace, never in
// MC_HOME.
func (l *loader) project() scope { return scope{root: l.cwd, mcHome: l.home} }

// agentsDirs lists the directories whose AGENTS.md apply to cwd, outermost
// first: from the repository root (the nearest directory at or above cwd
// holding a .git directory or file) down to cwd; only cwd when no
// repository holds it. The walk only looks at names: nothing is read.
func agentsDirs(cwd string) []string {
	dirs := []string{cwd}
	for d := cwd; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return dirs
		}
		parent := filepath.Dir(d)
		if parent == d {
			return []string{cwd} // no repository: the cwd's alone
		}
		d = parent
		dirs = append([]string{d}, dirs...)
	}
}

// instructions reads, in order: $MC_HOME/AGENTS.md; the AGENTS.md of each
// directory from the repository root down to the cwd (agentsDirs); then the
// paths the global settings list and those the project settings list
// (required: a missing or unreadable one fails the load; an AGENTS.md that
// cannot be read is skipped with a problem). A file reached twice (by a
// symlink, or cwd == MC_HOME) appears once, at its first position. A file
// its scope refuses is skipped with a problem: global ones resolve inside
// MC_HOME, an AGENTS.md inside its own directory, the project's listed
// paths inside the workspace; listed global paths anywhere.
func (l *loader) instructions(globalListed, projectListed []string) ([]Document, error) {
	type candidate struct {
		path, source string
		required     bool
		scope        scope
	}
	cands := []candidate{{filepath.Join(l.home, "AGENTS.md"), SourceGlobal, false, scope{root: l.home}}}
	for _, dir := range agentsDirs(l.cwd) {
		p := filepath.Join(dir, "AGENTS.md")
		if _, err := os.Lstat(p); err == nil {
			cands = append(cands, candidate{p, SourceProject, false, scope{root: dir, mcHome: l.home}})
		}
	}
	for _, p := range globalListed {
		cands = append(cands, candidate{p, "settings", true, scope{root: "/"}})
	}
	for _, p := range projectListed {
		cands = append(cands, candidate{p, "settings", true, l.project()})
	}
	if len(cands) > MaxInstructionFiles {
		l.problem(l.cwd, errors.New("too many instruction files"))
		return nil, errors.New("too many instruction files")
	}
	var docs []Document
	seen := map[string]bool{}
	for _, c := range cands {
		if p, err := canonical(c.path); err == nil && seen[p] {
			continue
		}
		p, data, err := readDocument(c.path, c.scope)
		switch {
		case err == nil:
		case refused(err):
			l.problem(c.path, fmt.Errorf("instruction file refused: it %w", err))
			continue
		case !c.required && errors.Is(err, fs.ErrNotExist):
			continue
		case !c.required:
			// An AGENTS.md that cannot be read (a FIFO, a parent
			// directory's file the person may not read) is skipped.
			l.problem(c.path, fmt.Errorf("instruction file skipped: %w", err))
			continue
		default:
			l.problem(c.path, err)
			return nil, errors.New("instruction file unreadable")
		}
		seen[p] = true
		docs = append(docs, Document{Path: p, Source: c.source, Text: string(data)})
	}
	return docs, nil
}

// readDirBounded returns the entries of dir (absent is empty), bounded.
func readDirBounded(dir string) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(MaxDirEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) { // io.EOF: an empty directory
		return nil, err
	}
	if len(entries) > MaxDirEntries {
		return nil, errors.New("too many entries")
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

// docRoot is one directory of skills or profiles and where its files may
// resolve.
type docRoot struct {
	dir, source string
	scope       scope
}

// skillRoots are the skill directories, weakest first: a later root's
// skill replaces an earlier one of the same name. ~/.claude/skills (the
// person's Claude Code skills) only when HOME is known.
func (l *loader) skillRoots() []docRoot {
	var roots []docRoot
	if l.env.Home != "" {
		claude := filepath.Join(l.env.Home, ".claude")
		if c, err := canonical(claude); err == nil {
			claude = c
		}
		roots = append(roots, docRoot{filepath.Join(claude, "skills"), SourceGlobal, scope{root: claude}})
	}
	return append(roots,
		docRoot{filepath.Join(l.home, "skills"), SourceGlobal, scope{root: l.home}},
		docRoot{filepath.Join(l.cwd, ".claude", "skills"), SourceProject, l.project()},
		docRoot{filepath.Join(l.cwd, ".magi-code", "skills"), SourceProject, l.project()},
	)
}

// skills reads <root>/<name>/SKILL.md of every skill root (skillRoots). A
// skill of a later root replaces one of the same name (project wins over
// global; .magi-code over .claude), then disabled names are dropped.
// Hidden directories and directories without SKILL.md are skipped
// silently; a skill that cannot be read, is refused by its scope, has an
// invalid directory name or front matter that does not parse is skipped
// with a problem. The result is sorted by name.
func (l *loader) skills(disabled []string) []Skill {
	byName := map[string]Skill{}
	for _, root := range l.skillRoots() {
		entries, err := readDirBounded(root.dir)
		if err != nil {
			l.problem(root.dir, fmt.Errorf("skills directory skipped: %w", err))
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			path := filepath.Join(root.dir, name, "SKILL.md")
			if _, err := os.Lstat(path); err != nil {
				continue // a stray file, or a directory without SKILL.md
			}
			if !protocol.ValidID(name) {
				l.problem(path, errors.New("skill skipped: its directory name is not 1-64 of A-Z a-z 0-9 . _ -"))
				continue
			}
			s, err := readSkill(path, root.scope)
			if err != nil {
				l.problem(path, fmt.Errorf("skill skipped: %w", err))
				continue
			}
			s.Name, s.Source = name, root.source
			byName[name] = s.Skill
		}
	}
	skills := make([]Skill, 0, len(byName))
	for name, s := range byName {
		if !slices.Contains(disabled, name) {
			skills = append(skills, s)
		}
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills
}

// skillFile is one read SKILL.md.
type skillFile struct {
	Skill
	body string
}

// readSkill reads the SKILL.md at path in scope sc: its front matter
// (optional; description is the only key used, others such as name,
// license, metadata and allowed-tools are accepted and ignored) and body.
func readSkill(path string, sc scope) (skillFile, error) {
	canon, data, err := readDocument(path, sc)
	if err != nil {
		if refused(err) {
			return skillFile{}, fmt.Errorf("it %w", err)
		}
		return skillFile{}, err
	}
	fm, body, has, err := splitFrontMatter(data)
	if err != nil {
		return skillFile{}, err
	}
	s := skillFile{Skill: Skill{Path: canon, scope: sc}, body: string(body)}
	if has {
		meta, err := parseFrontMatter(fm)
		if err != nil {
			return skillFile{}, err
		}
		if s.Description, err = meta.text("description"); err != nil {
			return skillFile{}, err
		}
		s.Description = oneLine(s.Description, MaxDescriptionBytes)
	}
	return s, nil
}

// oneLine folds s's white space runs into single spaces and cuts it to at
// most max bytes (on a rune boundary, marked with an ellipsis).
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ReadSkill reads s's body again, when the model uses the skill: the same
// scope decides (a SKILL.md swapped since startup for a link outside, to a
// credential file or under /proc is refused), and the front matter is
// left out. The error is for the log; the model gets a fixed sentence.
func ReadSkill(s Skill) (string, error) {
	f, err := readSkill(s.Path, s.scope)
	if err != nil {
		return "", err
	}
	return f.body, nil
}

// loadProfiles reads $MC_HOME/agents/*.md then <cwd>/.magi-code/agents/*.md.
// A project profile replaces a global profile of the same name; two files
// of one directory claiming one name are profile_invalid. Disabled profiles
// are dropped. Every file's front matter must parse and be valid. A file
// its scope refuses (a project profile resolving outside the workspace, a
// credential file, /proc) is skipped with a problem.
func (l *loader) profiles(disabled []string) ([]Profile, error) {
	byName := map[string]Profile{}
	for _, root := range []docRoot{
		{filepath.Join(l.home, "agents"), SourceGlobal, scope{root: l.home}},
		{filepath.Join(l.cwd, ".magi-code", "agents"), SourceProject, l.project()},
	} {
		entries, err := readDirBounded(root.dir)
		if err != nil {
			l.problem(root.dir, fmt.Errorf("agents directory unreadable: %w", err))
			return nil, errors.New("agents directory unreadable")
		}
		inDir := map[string]bool{}
		for _, e := range entries {
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(root.dir, e.Name())
			p, err := parseProfile(path, strings.TrimSuffix(e.Name(), ".md"), root.scope)
			if refused(err) {
				l.problem(path, fmt.Errorf("profile skipped: it %w", err))
				continue
			}
			if err != nil {
				l.problem(path, fmt.Errorf("profile invalid: %w", err))
				return nil, err
			}
			if inDir[p.Name] {
				l.problem(path, fmt.Errorf("profile invalid: name %s defined twice", p.Name))
				return nil, errors.New("duplicate profile name")
			}
			inDir[p.Name] = true
			p.Source = root.source
			byName[p.Name] = p
		}
	}
	profiles := make([]Profile, 0, len(byName))
	for name, p := range byName {
		if !slices.Contains(disabled, name) {
			profiles = append(profiles, p)
		}
	}
	sort.Slice(profiles, func(i, j int) bool { return profiles[i].Name < profiles[j].Name })
	return profiles, nil
}

// parseProfile reads one profile in scope sc. Front matter is required:
// description is required, name defaults to the file's stem, mode defaults
// to subagent, tools is a list (or a comma-separated string), model is
// optional. Unknown keys are ignored, so profiles written for other agents
// (Claude Code's color:, permissionMode:...) still load.
func parseProfile(path, stem string, sc scope) (Profile, error) {
	_, data, err := readDocument(path, sc)
	if err != nil {
		return Profile{}, err
	}
	fm, body, has, err := splitFrontMatter(data)
	if err != nil {
		return Profile{}, err
	}
	if !has {
		return Profile{}, &lineError{line: 1, msg: "no front matter (a --- line, keys, a --- line)"}
	}
	meta, err := parseFrontMatter(fm)
	if err != nil {
		return Profile{}, err
	}
	p := Profile{Path: path, Prompt: string(body)}
	if p.Name, err = meta.text("name"); err != nil {
		return Profile{}, err
	}
	if p.Name == "" {
		p.Name = stem
	}
	if !protocol.ValidID(p.Name) {
		return Profile{}, errors.New("name: not 1-64 of A-Z a-z 0-9 . _ -")
	}
	if p.Description, err = meta.text("description"); err != nil {
		return Profile{}, err
	}
	if strings.TrimSpace(p.Description) == "" {
		return Profile{}, errors.New("description: required")
	}
	if p.Mode, err = meta.text("mode"); err != nil {
		return Profile{}, err
	}
	switch p.Mode {
	case "":
		p.Mode = "subagent"
	case "primary", "subagent":
	default:
		return Profile{}, errors.New("mode: not primary|subagent")
	}
	if p.Model, err = meta.text("model"); err != nil {
		return Profile{}, err
	}
	if p.Tools, err = meta.list("tools"); err != nil {
		return Profile{}, err
	}
	for _, t := range p.Tools {
		if len(t) > 128 || strings.ContainsFunc(t, unicode.IsControl) {
			return Profile{}, errors.New("tools: invalid tool name")
		}
	}
	return p, nil
}

// selectAgents splits profiles into the selected primary agent (nil when
// settings name none) and the subagents. A selected agent that is missing,
// disabled or not primary is profile_invalid.
func selectAgents(profiles []Profile, agent string) (*Profile, []Profile, error) {
	var primary *Profile
	var subs []Profile
	for i := range profiles {
		p := profiles[i]
		if p.Mode == "subagent" {
			subs = append(subs, p)
		}
		if agent != "" && p.Name == agent {
			if p.Mode != "primary" {
				return nil, nil, errors.New("selected agent is not a primary profile")
			}
			primary = &p
		}
	}
	if agent != "" && primary == nil {
		return nil, nil, errors.New("selected agent not found or disabled")
	}
	return primary, subs, nil
}

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

	"github.com/magi-code/magi-code/protocol"
)

// Document is one instruction file, in the order the model sees them.
type Document struct {
	Path   string // canonical path (never sent on the wire)
	Source string // global | project | settings
	Text   string
}

// Skill is one SKILL.md: its directory name is its name.
type Skill struct {
	Name        string
	Description string // from front matter, "" when absent
	Path        string
	Source      string // global | project
	Text        string // the body after any front matter
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

// loadInstructions reads, in order: $MC_HOME/AGENTS.md, <cwd>/AGENTS.md (both
// optional), then each listed path (required). A file reached twice (by a
// symlink, or cwd == MC_HOME) appears once, at its first position.
func loadInstructions(home, cwd string, listed []string, env *Env) ([]Document, error) {
	type candidate struct {
		path, source string
		required     bool
	}
	cands := []candidate{
		{filepath.Join(home, "AGENTS.md"), SourceGlobal, false},
		{filepath.Join(cwd, "AGENTS.md"), SourceProject, false},
	}
	for _, p := range listed {
		cands = append(cands, candidate{p, "settings", true})
	}
	if len(cands) > MaxInstructionFiles {
		return nil, errors.New("too many instruction files")
	}
	var docs []Document
	seen := map[string]bool{}
	for _, c := range cands {
		p, err := canonical(c.path)
		if err != nil {
			if !c.required && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			env.logf("config: instruction file %s: %v", c.path, err)
			return nil, errors.New("instruction file unreadable")
		}
		// Instructions go verbatim to the provider: only Markdown files,
		// after following symlinks, so that no listed path or AGENTS.md
		// link can put auth.json, .env or a key file in front of the model.
		if !strings.EqualFold(filepath.Ext(p), ".md") {
			env.logf("config: instruction file %s resolves to a file that is not Markdown", c.path)
			return nil, errors.New("instruction file is not Markdown")
		}
		if seen[p] {
			continue
		}
		data, _, err := readBounded(p)
		if err != nil {
			env.logf("config: instruction file %s: %v", c.path, err)
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

// loadSkills reads $MC_HOME/skills/<name>/SKILL.md then
// <cwd>/.magi-code/skills/<name>/SKILL.md. A project skill replaces a global
// skill of the same name. Disabled names are dropped. Hidden directories and
// directories without SKILL.md are skipped. The result is sorted by name.
func loadSkills(home, cwd string, disabled []string, env *Env) ([]Skill, error) {
	byName := map[string]Skill{}
	for _, root := range []struct{ dir, source string }{
		{filepath.Join(home, "skills"), SourceGlobal},
		{filepath.Join(cwd, ".magi-code", "skills"), SourceProject},
	} {
		entries, err := readDirBounded(root.dir)
		if err != nil {
			env.logf("config: skills directory %s: %v", root.dir, err)
			return nil, errors.New("skills directory unreadable")
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			path := filepath.Join(root.dir, name, "SKILL.md")
			data, _, err := readBounded(path)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
				continue
			}
			if err != nil {
				if st, serr := os.Stat(filepath.Join(root.dir, name)); serr == nil && !st.IsDir() {
					continue // a stray file beside the skill directories
				}
				env.logf("config: skill %s: %v", path, err)
				return nil, errors.New("skill unreadable")
			}
			if !protocol.ValidID(name) {
				env.logf("config: skill directory name %q is not a valid name", name)
				return nil, errors.New("invalid skill name")
			}
			fm, body, has, err := splitFrontMatter(data)
			if err != nil {
				env.logf("config: skill %s: %v", path, err)
				return nil, err
			}
			s := Skill{Name: name, Path: path, Source: root.source, Text: string(body)}
			if has {
				meta, err := parseFrontMatter(fm)
				if err != nil {
					env.logf("config: skill %s: %v", path, err)
					return nil, err
				}
				if d, ok := meta["description"]; ok {
					if s.Description, ok = d.(string); !ok {
						return nil, errors.New("skill description: not a string")
					}
				}
			}
			byName[name] = s // project (second root) wins
		}
	}
	skills := make([]Skill, 0, len(byName))
	for name, s := range byName {
		if !slices.Contains(disabled, name) {
			skills = append(skills, s)
		}
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills, nil
}

// loadProfiles reads $MC_HOME/agents/*.md then <cwd>/.magi-code/agents/*.md.
// A project profile replaces a global profile of the same name; two files
// of one directory claiming one name are profile_invalid. Disabled profiles
// are dropped. Every file's front matter must parse and be valid.
func loadProfiles(home, cwd string, disabled []string, env *Env) ([]Profile, error) {
	byName := map[string]Profile{}
	for _, root := range []struct{ dir, source string }{
		{filepath.Join(home, "agents"), SourceGlobal},
		{filepath.Join(cwd, ".magi-code", "agents"), SourceProject},
	} {
		entries, err := readDirBounded(root.dir)
		if err != nil {
			env.logf("config: agents directory %s: %v", root.dir, err)
			return nil, errors.New("agents directory unreadable")
		}
		inDir := map[string]bool{}
		for _, e := range entries {
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(root.dir, e.Name())
			p, err := parseProfile(path, strings.TrimSuffix(e.Name(), ".md"))
			if err != nil {
				env.logf("config: profile %s: %v", path, err)
				return nil, err
			}
			if inDir[p.Name] {
				env.logf("config: profile %s: name %s defined twice", path, p.Name)
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

// parseProfile reads one profile. Front matter is required: description is
// required, name defaults to the file's stem, mode defaults to subagent,
// tools is a list (or a comma-separated string), model is optional.
// Unknown keys are ignored, so profiles written for other agents still load.
func parseProfile(path, stem string) (Profile, error) {
	data, _, err := readBounded(path)
	if err != nil {
		return Profile{}, err
	}
	fm, body, has, err := splitFrontMatter(data)
	if err != nil {
		return Profile{}, err
	}
	if !has {
		return Profile{}, errors.New("no front matter")
	}
	meta, err := parseFrontMatter(fm)
	if err != nil {
		return Profile{}, err
	}
	str := func(key string) (string, error) {
		v, ok := meta[key]
		if !ok {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%s: not a string", key)
		}
		return s, nil
	}
	p := Profile{Path: path, Prompt: string(body)}
	if p.Name, err = str("name"); err != nil {
		return Profile{}, err
	}
	if p.Name == "" {
		p.Name = stem
	}
	if !protocol.ValidID(p.Name) {
		return Profile{}, errors.New("name: invalid")
	}
	if p.Description, err = str("description"); err != nil {
		return Profile{}, err
	}
	if strings.TrimSpace(p.Description) == "" {
		return Profile{}, errors.New("description: required")
	}
	if p.Mode, err = str("mode"); err != nil {
		return Profile{}, err
	}
	switch p.Mode {
	case "":
		p.Mode = "subagent"
	case "primary", "subagent":
	default:
		return Profile{}, errors.New("mode: not primary|subagent")
	}
	if p.Model, err = str("model"); err != nil {
		return Profile{}, err
	}
	switch t := meta["tools"].(type) {
	case nil:
	case []string:
		p.Tools = t
	case string:
		for _, s := range strings.Split(t, ",") {
			if s = strings.TrimSpace(s); s != "" {
				p.Tools = append(p.Tools, s)
			}
		}
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

package shell

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// The configuration of Mercurial, Sapling and jj, read for their aliases
// (and Mercurial's [defaults], jj's ui.default-command) within the bounds
// of git's (gitconfig.go): maxGitConfigFiles visits, maxGitIncludes levels
// of %include, maxGitConfigBytes per command and over the whole check
// (the bytes share checker.gitBytes with git's). Past a bound, or where a
// file cannot be read or parsed, the configuration is unsure and a
// command an alias could hide asks.

// vcsSetting is one configuration entry: "section.name" and its value
// (for jj, the alias's words).
type vcsSetting struct {
	key   string
	words []field
	value string
}

// vcsConf is what the guard rail knows of a client's configuration.
type vcsConf struct {
	settings []vcsSetting
	unsure   bool
}

// get returns the last setting of key (later files win, as in every
// client read here).
func (g vcsConf) get(key string) (vcsSetting, bool) {
	for i := len(g.settings) - 1; i >= 0; i-- {
		if g.settings[i].key == key {
			return g.settings[i], true
		}
	}
	return vcsSetting{}, false
}

// names lists the names set below section ("alias" gives every alias).
func (g vcsConf) names(section string) []string {
	var out []string
	for _, s := range g.settings {
		if n, ok := strings.CutPrefix(s.key, section+"."); ok && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// vcsReader reads one command's configuration files within the bounds.
type vcsReader struct {
	c        *checker
	settings []vcsSetting
	files    int
	bytes    int
	unsure   bool
}

// read returns a file's bytes, nil for a missing one; false past the
// bounds or when it cannot be read (the configuration is then unsure).
func (r *vcsReader) read(p string) ([]byte, bool) {
	r.files++
	if r.files > maxGitConfigFiles || r.c.mayWrite(p) { // past the bound, or the script may change it first
		r.unsure = true
		return nil, false
	}
	if b, ok := r.c.vcsFiles[p]; ok {
		r.bytes += len(b)
		if r.bytes > maxGitConfigBytes {
			r.unsure = true
			return nil, false
		}
		return b, true
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return nil, true // a directory where a file may be: nothing read
	}
	f, err := openRegular(p)
	if os.IsNotExist(err) {
		r.c.vcsFiles[p] = nil
		return nil, true
	}
	if err != nil {
		r.unsure = true // unreadable, or a FIFO or device
		return nil, false
	}
	defer f.Close()
	left := min(maxGitConfigBytes-r.bytes, maxGitConfigBytes-r.c.gitBytes)
	b, err := io.ReadAll(io.LimitReader(f, int64(max(left, 0)+1)))
	r.c.gitBytes += len(b)
	if err != nil || len(b) > left {
		r.unsure = true
		return nil, false
	}
	if b == nil {
		b = []byte{}
	}
	r.c.vcsFiles[p] = b
	r.bytes += len(b)
	return b, true
}

// dir lists the files of dir whose names end in ext, sorted (as the
// clients load a configuration directory); none when it is missing.
// Each counts as a visit when it is read; more names than the visits
// left make the configuration unsure.
func (r *vcsReader) dir(dir, ext string) []string {
	f, err := os.OpenFile(dir, openFlags, 0) // a FIFO there does not block
	if err != nil {
		r.unsure = r.unsure || !os.IsNotExist(err)
		return nil
	}
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		f.Close()
		r.unsure = true
		return nil
	}
	names, err := f.Readdirnames(maxGitConfigFiles + 1)
	f.Close()
	if err != nil && err != io.EOF || len(names) > maxGitConfigFiles {
		r.unsure = true
		return nil
	}
	var out []string
	for _, n := range names {
		if strings.HasSuffix(n, ext) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	slices.Sort(out)
	return out
}

// pathOrDir reads p, or the files of p ending in ext when it is a directory.
func (r *vcsReader) pathOrDir(p, ext string, file func(string)) {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		for _, f := range r.dir(p, ext) {
			file(f)
		}
		return
	}
	file(p)
}

// env is the value of k in the command's environment (Place.Env), "" when
// unset.
func (c *checker) env(k string) string { return c.placeEnv[k] }

// Mercurial's configuration syntax (mercurial/config.py).
var (
	hgInclude = regexp.MustCompile(`^%include\s+(\S|\S.*\S)\s*$`)
	hgSection = regexp.MustCompile(`^\[([^\[]+)\]`)
	hgItem    = regexp.MustCompile(`^([^=\s][^=]*?)\s*=\s*((.*\S)?)`)
	hgCont    = regexp.MustCompile(`^\s+(\S|\S.*\S)\s*$`)
	hgUnset   = regexp.MustCompile(`^%unset\s+(\S+)`)
)

// hgFile reads one Mercurial or Sapling configuration file: [section],
// name = value with indented continuation lines, ; and # comments,
// %include (relative to the file, ~ and $VAR expanded) and %unset. A line
// Mercurial cannot parse makes it refuse the file, and the command fails:
// it is skipped here.
func (r *vcsReader) hgFile(p string, depth int) {
	if depth > maxGitIncludes {
		r.unsure = true
		return
	}
	b, ok := r.read(p)
	if !ok || b == nil {
		return
	}
	r.hgParse(string(b), filepath.Dir(p), depth)
}

// hgParse reads the text of a file in dir (against which %include paths
// are relative).
func (r *vcsReader) hgParse(src, dir string, depth int) {
	section, item := "", -1
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSuffix(l, "\r")
		if item >= 0 {
			if strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";") {
				continue
			}
			if m := hgCont.FindStringSubmatch(l); m != nil {
				r.settings[item].value += "\n" + m[1]
				continue
			}
			item = -1
		}
		if m := hgInclude.FindStringSubmatch(l); m != nil {
			r.hgFile(r.c.expandHome(m[1], dir), depth+1)
			continue
		}
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";") {
			continue
		}
		if m := hgSection.FindStringSubmatch(l); m != nil {
			section = strings.TrimSpace(m[1])
			continue
		}
		if m := hgItem.FindStringSubmatch(l); m != nil {
			r.settings = append(r.settings, vcsSetting{key: section + "." + m[1], value: m[2]})
			item = len(r.settings) - 1
			continue
		}
		if m := hgUnset.FindStringSubmatch(l); m != nil {
			key := section + "." + m[1]
			r.settings = slices.DeleteFunc(r.settings, func(s vcsSetting) bool { return s.key == key })
		}
	}
}

// upward calls found with dir and each directory above it, up to the
// root, until it reports that it found the repository there.
func upward(dir string, found func(d string) bool) {
	for d := filepath.Clean(dir); !found(d); d = filepath.Dir(d) {
		if d == "/" || d == "." {
			return
		}
	}
}

// expandHome expands a leading ~ and $VAR (the checker's known
// variables; another stays as written) in an included path, and makes it
// absolute against dir.
func (c *checker) expandHome(p, dir string) string {
	p = os.Expand(p, func(k string) string {
		if v, ok := c.vars[k]; ok {
			return v
		}
		return "$" + k
	})
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		p = filepath.Join(c.vars["HOME"], rest)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p
}

// hgConfig is the configuration Mercurial (sl: Sapling) reads in dir:
// every file either may read, a superset (HGRCPATH and SL_CONFIG_PATH
// replace the user's and system's files; they are read besides them
// here): the system's (/etc/mercurial/hgrc, hgrc.d/*.rc,
// /etc/sapling/system.conf), the user's (~/.hgrc, ~/.config/hg/hgrc,
// ~/.config/sapling/sapling.conf, ~/.slconfig), the repository's found
// walking up from dir (.hg/hgrc, .hg/hgrc-not-shared, the share source's
// hgrc, .sl/config, .git/sl/config), then cli (--config, and
// --configfile's files).
func (c *checker) hgConfig(dir string, cli []vcsSetting, files []string) vcsConf {
	home, okHome := c.vars["HOME"]
	if !okHome || dir == "" {
		return vcsConf{settings: cli, unsure: true}
	}
	r := &vcsReader{c: c}
	for _, v := range []string{"HGRCPATH", "SL_CONFIG_PATH"} {
		for _, p := range filepath.SplitList(c.env(v)) {
			if filepath.IsAbs(p) {
				r.pathOrDir(p, ".rc", func(f string) { r.hgFile(f, 0) })
			}
		}
	}
	for _, d := range []string{"/etc/mercurial/hgrc.d"} {
		for _, f := range r.dir(d, ".rc") {
			r.hgFile(f, 0)
		}
	}
	xdg := filepath.Join(home, ".config")
	if v, ok := c.vars["XDG_CONFIG_HOME"]; ok {
		xdg = v
	}
	for _, f := range []string{"/etc/mercurial/hgrc", "/etc/sapling/system.conf", filepath.Join(home, ".hgrc"),
		filepath.Join(xdg, "hg", "hgrc"), filepath.Join(xdg, "sapling", "sapling.conf"), filepath.Join(home, ".slconfig")} {
		r.hgFile(f, 0)
	}
	upward(dir, func(d string) bool {
		found := false
		for _, meta := range []string{".hg", ".sl", filepath.Join(".git", "sl")} {
			if fi, err := os.Stat(filepath.Join(d, meta)); err == nil && fi.IsDir() {
				found = true
			}
		}
		if found {
			hg := filepath.Join(d, ".hg")
			if b, err := readSmall(filepath.Join(hg, "sharedpath")); err == nil {
				if p := strings.TrimSpace(string(b)); p != "" {
					if !filepath.IsAbs(p) {
						p = filepath.Join(hg, p)
					}
					r.hgFile(filepath.Join(p, "hgrc"), 0)
				}
			}
			for _, f := range []string{filepath.Join(hg, "hgrc"), filepath.Join(hg, "hgrc-not-shared"),
				filepath.Join(d, ".sl", "config"), filepath.Join(d, ".git", "sl", "config")} {
				r.hgFile(f, 0)
			}
		}
		return found
	})
	for _, f := range files {
		r.hgFile(f, 0)
	}
	return vcsConf{settings: append(r.settings, cli...), unsure: r.unsure || c.vcsSet}
}

// jjConfig is the configuration jj reads in dir (repo: -R's directory,
// "" for dir): the user's ($JJ_CONFIG's files and directories read
// besides the defaults, ~/.jjconfig.toml, ~/.config/jj/config.toml and
// conf.d/*.toml, macOS's Application Support), the repository's found
// walking up from dir to a .jj (.jj/repo/config.toml, and the files that
// .jj/repo/config-id and .jj/workspace-config-id name below
// ~/.config/jj/repos and workspaces; .jj/workspace-config.toml; a
// workspace's .jj/repo file leads to its repository), then cli
// (--config, --config-toml, and --config-file's files). Only aliases and
// ui.default-command are kept; [[--scope]] tables count whatever their
// conditions.
func (c *checker) jjConfig(dir string, cli []vcsSetting, files []string) vcsConf {
	home, okHome := c.vars["HOME"]
	if !okHome || dir == "" {
		return vcsConf{settings: cli, unsure: true}
	}
	r := &vcsReader{c: c}
	for _, p := range filepath.SplitList(c.env("JJ_CONFIG")) {
		if filepath.IsAbs(p) {
			r.pathOrDir(p, ".toml", r.jjFile)
		}
	}
	xdg := filepath.Join(home, ".config")
	if v, ok := c.vars["XDG_CONFIG_HOME"]; ok {
		xdg = v
	}
	for _, f := range []string{filepath.Join(home, ".jjconfig.toml"), filepath.Join(xdg, "jj", "config.toml"),
		filepath.Join(home, "Library", "Application Support", "jj", "config.toml")} {
		r.jjFile(f)
	}
	for _, f := range r.dir(filepath.Join(xdg, "jj", "conf.d"), ".toml") {
		r.jjFile(f)
	}
	upward(dir, func(d string) bool {
		jj := filepath.Join(d, ".jj")
		fi, err := os.Stat(jj)
		if err != nil || !fi.IsDir() {
			return false
		}
		repo := filepath.Join(jj, "repo")
		if fi, err := os.Stat(repo); err == nil && !fi.IsDir() {
			if b, err := readSmall(repo); err == nil {
				if p := strings.TrimSpace(string(b)); p != "" {
					if !filepath.IsAbs(p) {
						p = filepath.Join(jj, p)
					}
					repo = p
				}
			}
		}
		r.jjFile(filepath.Join(repo, "config.toml"))
		r.jjFile(filepath.Join(jj, "workspace-config.toml"))
		for _, id := range []struct{ file, root string }{{filepath.Join(repo, "config-id"), "repos"}, {filepath.Join(jj, "workspace-config-id"), "workspaces"}} {
			if b, err := readSmall(id.file); err == nil {
				if v := strings.TrimSpace(string(b)); v != "" && !strings.ContainsAny(v, `/\`) && v != ".." {
					r.jjFile(filepath.Join(xdg, "jj", id.root, v, "config.toml"))
				}
			}
		}
		return true
	})
	for _, f := range files {
		r.jjFile(f)
	}
	return vcsConf{settings: append(r.settings, cli...), unsure: r.unsure || c.vcsSet}
}

// jjFile reads one jj configuration file (TOML); one that does not parse
// makes the configuration unsure.
func (r *vcsReader) jjFile(p string) {
	b, ok := r.read(p)
	if !ok || b == nil {
		return
	}
	var doc map[string]any
	if err := toml.Unmarshal(b, &doc); err != nil {
		r.unsure = true
		return
	}
	r.jjTable(doc, 0)
}

// jjTable keeps a TOML table's aliases and ui.default-command, and those
// of its [[--scope]] tables.
func (r *vcsReader) jjTable(doc map[string]any, depth int) {
	if depth > maxGitIncludes {
		r.unsure = true
		return
	}
	if aliases, ok := doc["aliases"].(map[string]any); ok {
		for name, v := range aliases {
			r.settings = append(r.settings, jjSetting("aliases."+name, v, &r.unsure))
		}
	} else if doc["aliases"] != nil {
		r.unsure = true
	}
	if ui, ok := doc["ui"].(map[string]any); ok && ui["default-command"] != nil {
		r.settings = append(r.settings, jjSetting("ui.default-command", ui["default-command"], &r.unsure))
	}
	if scopes, ok := doc["--scope"].([]any); ok {
		for _, s := range scopes {
			if t, ok := s.(map[string]any); ok {
				r.jjTable(t, depth+1)
			}
		}
	}
}

// jjSetting is an alias or default command as words: an array of strings,
// or (ui.default-command only) one string. Anything else is unsure.
func jjSetting(key string, v any, unsure *bool) vcsSetting {
	s := vcsSetting{key: key}
	switch v := v.(type) {
	case string:
		s.words = []field{lit(v)}
	case []any:
		for _, w := range v {
			t, ok := w.(string)
			if !ok {
				*unsure = true
				return vcsSetting{key: key, words: []field{unknown}}
			}
			s.words = append(s.words, lit(t))
		}
	default:
		*unsure = true
		return vcsSetting{key: key, words: []field{unknown}}
	}
	return s
}

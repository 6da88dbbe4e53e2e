package shell

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Bounds on the git configuration one check reads: past them git's
// effective configuration is unknown, and what it could change asks.
const (
	maxGitConfigBytes = 1 << 20 // all files of one repository together, and all read by one check
	maxGitConfigFiles = 32      // files, includes counted, each time one is visited
	maxGitIncludes    = 10      // nesting of include.path (git's own limit)
)

// gitSetting is one configuration entry: the key in lower case
// (section.subsection.name; git's section and name are case-insensitive,
// and no rule here depends on a subsection's case) and its value.
type gitSetting struct{ key, value string }

// gitConf is what the guard rail knows of the configuration a git command
// runs with: -c settings, the repository's own config (which the
// repository's owner, or a confined command before the sandbox made .git
// read-only, controls), the global and the system files.
type gitConf struct {
	settings []gitSetting // in git's order: the files (system, global, the repository's), then -c; the last one wins
	files    int          // the first files settings are the files' ones
	unsure   bool         // some of it could not be read: anything it sets is possible
}

// alias returns the value of alias.name (the last one wins, as in git).
func (g gitConf) alias(name string) (string, bool) {
	key := "alias." + strings.ToLower(name)
	v, ok := "", false
	for _, s := range g.settings {
		if s.key == key {
			v, ok = s.value, true
		}
	}
	return v, ok
}

// autocorrects reports whether help.autocorrect makes git run the command
// closest to a name that is no command (a number other than 0, a negative
// one, immediate, prompt: stdin may say yes).
func (g gitConf) autocorrects() bool {
	v := ""
	for _, s := range g.settings {
		if s.key == "help.autocorrect" {
			v = strings.ToLower(strings.TrimSpace(s.value))
		}
	}
	switch v {
	case "", "0", "false", "no", "off", "never", "show":
		return false
	}
	return true
}

// forcesPush reports whether a setting makes a plain git push overwrite or
// delete remote history: a push refspec that forces (+) or deletes (:),
// a mirroring remote, or pushing submodules (each with a configuration of
// its own, not read here).
func (g gitConf) forcesPush() bool {
	for _, s := range g.settings {
		v := strings.TrimSpace(s.value)
		section, rest, _ := strings.Cut(s.key, ".")
		name := rest[strings.LastIndexByte(rest, '.')+1:]
		switch {
		case section == "remote" && name == "push" && (strings.HasPrefix(v, "+") || strings.HasPrefix(v, ":")):
			return true
		case section == "remote" && name == "mirror" && gitTrue(v):
			return true
		case s.key == "push.recursesubmodules" && v != "check" && !gitFalse(v):
			return true
		}
	}
	return false
}

// gitTrue and gitFalse read a boolean setting; a key without "=" is true.
func gitTrue(v string) bool { return !gitFalse(v) }

func gitFalse(v string) bool {
	switch strings.ToLower(v) {
	case "false", "no", "off", "0", "":
		return true
	}
	return false
}

// gitConfig is the configuration git reads when run in dir (gitDir when
// --git-dir names one), in git's order, where the last value of a setting
// wins: /etc/gitconfig, the global files below XDG_CONFIG_HOME and HOME,
// the repository's config (found by walking up from dir as git does) and
// config.worktree, then the -c settings. Files are read once per check.
func (c *checker) gitConfig(dir, gitDir string, cli []gitSetting) gitConf {
	g := gitConf{settings: append([]gitSetting(nil), cli...)}
	home, okHome := c.vars["HOME"]
	if !okHome || (dir == "" && gitDir == "") {
		g.unsure = true
		return g
	}
	xdg := filepath.Join(home, ".config")
	if v, ok := c.vars["XDG_CONFIG_HOME"]; ok {
		xdg = v
	}
	if gitDir == "" && c.env("GIT_DIR") != "" || c.env("GIT_CONFIG_PARAMETERS") != "" {
		g.unsure = true // the tool's environment names another repository, or settings in git's quoting
	}
	repo, _ := findGitDir(dir, gitDir)
	files := gitConfigFiles(home, xdg, repo)
	// The tool's environment may name other files: GIT_CONFIG_SYSTEM
	// replaces /etc/gitconfig, GIT_CONFIG_GLOBAL both global files.
	if v := c.env("GIT_CONFIG_SYSTEM"); v != "" {
		files[0] = v
	}
	if v := c.env("GIT_CONFIG_GLOBAL"); v != "" {
		files = append([]string{files[0], v}, files[3:]...)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return f == os.DevNull }) // none
	r := &gitReader{home: home, cache: c.gitFiles, read: &c.gitBytes, written: c.mayWrite}
	for _, f := range files {
		if !filepath.IsAbs(f) {
			r.unsure = true // relative to a directory the check does not follow
			continue
		}
		r.file(f, 0)
	}
	// GIT_CONFIG_COUNT settings of the tool's environment come after the
	// files, before -c.
	if n := c.env("GIT_CONFIG_COUNT"); n != "" {
		count, err := strconv.Atoi(n)
		if err != nil || count < 0 || count > maxGitConfigFiles {
			r.unsure = true
		}
		for i := range min(max(count, 0), maxGitConfigFiles) {
			k := strings.ToLower(c.env(fmt.Sprintf("GIT_CONFIG_KEY_%d", i)))
			r.settings = append(r.settings, gitSetting{key: k, value: c.env(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))})
		}
	}
	g.settings = append(r.settings, g.settings...)
	g.files = len(r.settings)
	g.unsure = g.unsure || r.unsure || c.gitSet
	return g
}

// gitConfigFiles are the files git reads its configuration from, in its
// order, for the git directory repo ("" outside any repository):
// /etc/gitconfig, the global files below xdg and home, the repository's
// config (in its common directory, for a worktree) and config.worktree.
func gitConfigFiles(home, xdg, repo string) []string {
	files := []string{"/etc/gitconfig", filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig")}
	if repo != "" {
		files = append(files, filepath.Join(gitCommonDir(repo), "config"), filepath.Join(repo, "config.worktree"))
	}
	return files
}

// gitCommonDir is the directory a worktree's git directory shares with
// the main one (its commondir file; config and hooks live there), else
// repo itself.
func gitCommonDir(repo string) string {
	if b, err := readSmall(filepath.Join(repo, "commondir")); err == nil {
		if p := strings.TrimSpace(string(b)); filepath.IsAbs(p) {
			return p
		} else if p != "" {
			return filepath.Join(repo, p)
		}
	}
	return repo
}

// hooksWritten reports whether the line may have written, before a git
// command run in dir (gitDir when --git-dir names it), into the hooks git
// runs for it: the git directory's hooks, or core.hooksPath's directory
// (relative to the work tree's top, ~/ from HOME); or whether the
// repository is not known while the line writes anything.
func (c *checker) hooksWritten(dir, gitDir string, conf func() gitConf) bool {
	if len(c.written) == 0 {
		return false
	}
	if dir == "" && gitDir == "" {
		return true
	}
	repo, top := findGitDir(dir, gitDir)
	if repo == "" {
		return false
	}
	dirs := []string{filepath.Join(gitCommonDir(repo), "hooks")}
	if h := hooksPath(conf().settings, c.vars["HOME"], cmp.Or(top, dir)); h != "" {
		dirs = append(dirs, h)
	}
	for w := range c.written {
		for _, d := range dirs {
			if within(d, w) || within(w, d) {
				return true
			}
		}
	}
	return false
}

// hooksPath is the directory core.hooksPath names in settings (the last
// value wins), absolute and clean: "~/" from home, a relative one from
// top (the work tree's top, where git runs hooks); "" when unset or empty,
// or "~/" without a home.
func hooksPath(settings []gitSetting, home, top string) string {
	hooks := ""
	for _, s := range settings {
		if s.key == "core.hookspath" {
			hooks = s.value
		}
	}
	switch {
	case hooks == "":
		return ""
	case strings.HasPrefix(hooks, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, hooks[2:])
	case filepath.IsAbs(hooks):
		return filepath.Clean(hooks)
	}
	return filepath.Join(top, hooks)
}

// GitRunPaths returns the paths outside the git directory of the
// repository whose work tree holds dir that the person's next git command
// there reads as configuration or runs, so that no confined command may
// write them: every configuration file an include names (include.path,
// includeIf.*.path: a repository may include a file it commits, whose
// core.fsmonitor or aliases git then runs), present or not, and where
// core.hooksPath puts the hooks outside the git directory, that directory
// and the one holding it unless that is the work tree's top, since a hook
// there may run its neighbours by a fixed relative path (husky sets
// core.hooksPath = .husky/_, whose scripts run .husky/NAME). Each is
// absolute and clean; a relative core.hooksPath is taken from the work
// tree's top, as git runs hooks there, and "~/" from HOME; one at or
// above the top (the whole work tree) is left out. env gives HOME and
// XDG_CONFIG_HOME (the last entry wins). The configuration is read as the
// guard rail reads it (includes followed whatever their condition, within
// the same bounds); none when dir is in no repository or HOME is not
// absolute.
func GitRunPaths(dir string, env []string) []string {
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	home, xdg := get("HOME"), get("XDG_CONFIG_HOME")
	if !filepath.IsAbs(home) || !filepath.IsAbs(dir) {
		return nil
	}
	if !filepath.IsAbs(xdg) {
		xdg = filepath.Join(home, ".config")
	}
	repo, top := findGitDir(dir, "")
	if repo == "" {
		return nil
	}
	read := 0
	r := &gitReader{home: home, cache: map[string]gitFile{}, read: &read}
	for _, f := range gitConfigFiles(home, xdg, repo) {
		r.file(f, 0)
	}
	var out []string
	add := func(p string) {
		if !within(filepath.Clean(repo), p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, p := range r.included {
		add(p)
	}
	hooks := hooksPath(r.settings, home, top)
	if hooks == "" || within(hooks, filepath.Clean(top)) {
		return out // the whole work tree: not protected as hooks (see docs/configuration.md)
	}
	add(hooks)
	if parent := filepath.Dir(hooks); parent != filepath.Clean(top) && parent != hooks {
		add(parent)
	}
	return out
}

// findGitDir is the git directory of a repository whose work tree holds
// dir, and that work tree's top: gitDir when given (top ""), else the
// first dir/.git walking up (a directory, or a file "gitdir: PATH" as in
// worktrees and submodules) and the directory holding it; "" outside any
// repository.
func findGitDir(dir, gitDir string) (repo, top string) {
	if gitDir != "" {
		return gitDir, ""
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return p, d
			}
			if b, err := readSmall(p); err == nil {
				if v, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
					v = strings.TrimSpace(v)
					if !filepath.IsAbs(v) {
						v = filepath.Join(d, v)
					}
					return v, d
				}
			}
		}
		if d == "/" || d == "." {
			return "", ""
		}
	}
}

// readSmall reads a small file (a .git or commondir file), at most 4 KiB.
func readSmall(p string) ([]byte, error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4096))
}

// errNotRegular: a configuration path names a FIFO, a device, a directory
// or a socket, which no check reads.
var errNotRegular = errors.New("not a regular file")

// openRegular opens the regular file p for reading without blocking on
// anything else (openFlags): a configuration file that is a FIFO or a
// device, which a repository or an include can name, is errNotRegular.
func openRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, openFlags, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, errNotRegular
	}
	return f, nil
}

// gitReader reads configuration files and their includes within the bounds.
// files and bytes count every visit of a file, a cached one too, so that a
// file including itself many times costs at most maxGitConfigFiles visits;
// read counts the bytes read from disk over the whole check, which the
// cache shares between its git commands.
type gitReader struct {
	home     string
	settings []gitSetting
	files    int
	bytes    int
	unsure   bool
	cache    map[string]gitFile
	read     *int
	written  func(string) bool // the script may write this path before git reads it
	included []string          // the files includes named, present or not, in order
}

// gitFile is one configuration file as read: its settings and its size.
type gitFile struct {
	settings []gitSetting
	size     int
}

// file reads one file: a missing one adds nothing; one past the bounds,
// or unreadable, makes the configuration unsure. include.path and every
// includeIf.*.path are followed whatever their condition (a superset of
// what git reads).
func (r *gitReader) file(p string, depth int) {
	if depth > maxGitIncludes {
		r.unsure = true
		return
	}
	r.files++
	if depth > 0 {
		r.included = append(r.included, filepath.Clean(p))
	}
	if r.files > maxGitConfigFiles || r.written != nil && r.written(p) {
		r.unsure = true
		return
	}
	cached, ok := r.cache[p]
	if !ok {
		f, err := openRegular(p)
		if os.IsNotExist(err) {
			r.cache[p] = gitFile{}
			return
		}
		if err != nil {
			r.unsure = true
			return
		}
		left := min(maxGitConfigBytes-r.bytes, maxGitConfigBytes-*r.read)
		b, err := io.ReadAll(io.LimitReader(f, int64(left+1)))
		f.Close()
		*r.read += len(b)
		if err != nil || len(b) > left {
			r.unsure = true
			return
		}
		cached = gitFile{settings: parseGitConfig(string(b)), size: len(b)}
		r.cache[p] = cached
	}
	r.bytes += cached.size
	if r.bytes > maxGitConfigBytes {
		r.unsure = true
		return
	}
	for _, s := range cached.settings {
		r.settings = append(r.settings, s)
		if s.key == "include.path" || strings.HasPrefix(s.key, "includeif.") && strings.HasSuffix(s.key, ".path") {
			inc := s.value
			switch {
			case strings.HasPrefix(inc, "~/"):
				inc = filepath.Join(r.home, inc[2:])
			case inc == "" || strings.HasPrefix(inc, "~"):
				r.unsure = inc != ""
				continue
			case !filepath.IsAbs(inc):
				inc = filepath.Join(filepath.Dir(p), inc)
			}
			r.file(inc, depth+1)
		}
	}
}

// parseGitConfig reads git's configuration syntax: [section],
// [section "subsection"] (and the old [section.subsection]), name = value
// lines (a bare name is true), values with "quoted" parts, \-escapes and
// \-newline continuations, and ; or # comments. Anything it cannot read
// ends the file (git refuses such a file, and the command fails). A UTF-8
// byte order mark at the start is skipped, as git does.
func parseGitConfig(src string) []gitSetting {
	var out []gitSetting
	section := ""
	i := 0
	if strings.HasPrefix(src, "\uFEFF") {
		i = len("\uFEFF") // git skips a UTF-8 byte order mark at the start
	}
	skipSpace := func() {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r') {
			i++
		}
	}
	for i < len(src) {
		skipSpace()
		if i >= len(src) {
			break
		}
		switch ch := src[i]; {
		case ch == '\n':
			i++
			continue
		case ch == '#' || ch == ';':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case ch == '[':
			var ok bool
			if section, i, ok = gitSection(src, i+1); !ok {
				return out
			}
			continue
		case isKeyChar(ch):
			start := i
			for i < len(src) && isKeyChar(src[i]) {
				i++
			}
			name := strings.ToLower(src[start:i])
			skipSpace()
			value := "true"
			if i < len(src) && src[i] == '=' {
				i++
				value, i = gitValue(src, i)
			} else if i < len(src) && src[i] != '\n' && src[i] != '#' && src[i] != ';' {
				return out
			}
			if section != "" {
				value, _, _ = strings.Cut(value, "\x00") // git's value ends at a NUL
				out = append(out, gitSetting{key: section + "." + name, value: value})
			}
		default:
			return out
		}
	}
	return out
}

// gitSection reads a section header from src[i:], past its "[", as git
// does: a name (letters, digits, "-" and "."; the old [section.subsection]
// keeps its dots), then "]", or white space and a quoted subsection whose
// \" and \\ (and any \x) are escapes and which may hold any other
// character, "]" too, then "]". It returns the section in lower case
// (section.subsection) and the index after the "]"; false where git
// refuses the header.
func gitSection(src string, i int) (string, int, bool) {
	start := i
	for i < len(src) && (isKeyChar(src[i]) || src[i] == '.') {
		i++
	}
	name := strings.ToLower(src[start:i])
	if i < len(src) && src[i] == ']' {
		return name, i + 1, name != ""
	}
	if name == "" || i >= len(src) || src[i] != ' ' && src[i] != '\t' {
		return "", i, false
	}
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if i >= len(src) || src[i] != '"' {
		return "", i, false
	}
	var sub strings.Builder
	for i++; i < len(src) && src[i] != '"'; i++ {
		switch {
		case src[i] == '\n':
			return "", i, false
		case src[i] == '\\' && i+1 < len(src) && src[i+1] != '\n':
			i++
		}
		sub.WriteByte(src[i])
	}
	if i+1 >= len(src) || src[i+1] != ']' {
		return "", i, false
	}
	return name + "." + strings.ToLower(sub.String()), i + 2, true
}

func isKeyChar(ch byte) bool {
	return ch == '-' || ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z'
}

// gitValue reads a value from src[i:] to its end of line, returning it and
// the index after it.
func gitValue(src string, i int) (string, int) {
	var b strings.Builder
	quoted := false
	pending := "" // white space kept only if more value follows
	for i < len(src) {
		ch := src[i]
		switch {
		case ch == '\n' && !quoted:
			return b.String(), i
		case ch == '\n':
			return b.String(), i // an unclosed quote: git refuses the file
		case (ch == '#' || ch == ';') && !quoted:
			for i < len(src) && src[i] != '\n' {
				i++
			}
			return b.String(), i
		case ch == '"':
			quoted = !quoted
			b.WriteString(pending)
			pending = ""
		case ch == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n':
			i += 2 // a continuation ending in CR LF
		case ch == '\\' && i+1 < len(src):
			i++
			b.WriteString(pending)
			pending = ""
			switch src[i] {
			case '\n':
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(src[i])
			}
		case (ch == ' ' || ch == '\t' || ch == '\r') && !quoted:
			if b.Len() > 0 {
				pending += string(ch)
			}
		default:
			b.WriteString(pending)
			pending = ""
			b.WriteByte(ch)
		}
		i++
	}
	return b.String(), i
}

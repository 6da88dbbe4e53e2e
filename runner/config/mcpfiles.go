package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/magi-code/magi-code/runner/sandbox"
	"github.com/magi-code/magi-code/runner/tools"
)

// Bounds of what an MCP approval binds beyond the definition: at most
// MaxBoundFiles files, each at most MaxBoundFileBytes. A server naming more,
// or a larger one, cannot be approved (and an approved one whose files grew
// past them no longer starts): the files are hashed at every start, so the
// reads stay bounded whatever the workspace holds.
const (
	MaxBoundFiles     = 64
	MaxBoundFileBytes = 64 << 20
)

// BoundFile is one file whose contents an approval binds. Path is the file
// as the definition names it (absolute, not resolved); Target is where
// symlinks lead when that is elsewhere; SHA256 the hex digest of its
// contents, or "" for a link that leads out of the writable directories
// (the link is bound, which its target is not: a confined command cannot
// write there).
type BoundFile struct {
	Path   string `json:"path"`
	Target string `json:"target,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// Binding is what an approval binds of a stdio server beyond its
// definition: Files, sorted by Path; and Unbound, the directories the
// definition names inside the writable directories (`node .`, `--root=src`),
// whose contents no digest can bind.
type Binding struct {
	Files   []BoundFile
	Unbound []string
}

// binder finds and hashes the files of a server's definition that a
// confined command, or a write tool, could change: those inside roots (the
// workspace, the temp directories and the other directories the OS sandbox
// lets confined commands write, canonical). path is the PATH that resolves
// a bare command name (exec's lookup uses the agent's own PATH, not the
// server's env); dir is the working directory of a server without cwd.
type binder struct {
	roots []string
	path  string
	dir   string
}

// newBinder is the binder of the settings s in the workspace cwd.
func newBinder(s *Settings, cwd string, env *Env) binder {
	var extra []string
	if s != nil {
		extra = s.Tools.Sandbox.WritableRoots
	}
	var roots []string
	for _, r := range sandbox.Defaults(cwd, []string{"TMPDIR=" + env.getenv("TMPDIR")}, extra) {
		if c, err := canonical(r); err == nil {
			r = c
		}
		if !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	return binder{roots: roots, path: env.getenv("PATH"), dir: cwd}
}

// errBindTooMany and errBindTooLarge refuse an approval; a bound file
// that cannot be read refuses it too.
var (
	errBindTooMany  = fmt.Errorf("it names more than %d files of the workspace", MaxBoundFiles)
	errBindTooLarge = fmt.Errorf("is larger than %d MiB", MaxBoundFileBytes>>20)
)

// named lists the paths a definition names, absolute and clean: the
// command (relative to dir when it holds a slash, else through the absolute
// entries of PATH, as exec finds it), then each argument and each value of
// env (in key order) as a whole, each word of one that holds several (a
// shell's `-c` script, a search path: split at white space and at
// ;&|()<>'"`,: ), and the VALUE of each such piece `NAME=VALUE` or
// `--flag=VALUE`, all relative to dir; for `-m MOD`, MOD's first component
// as a file MOD.py and as a directory. Naming more than a file is harmless:
// only files inside the roots are bound.
func (b binder) named(command string, args []string, env map[string]string, dir string) []string {
	if dir == "" {
		dir = b.dir
	}
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		out = append(out, filepath.Clean(p))
	}
	switch {
	case command == "":
	case strings.Contains(command, "/"):
		add(command)
	default:
		add(lookPath(command, b.path))
	}
	pieces := func(s string) {
		words := []string{s}
		if f := strings.FieldsFunc(s, isWordBreak); len(f) != 1 || f[0] != s {
			words = append(words, f...)
		}
		for _, w := range words {
			add(w)
			if _, v, ok := strings.Cut(w, "="); ok {
				add(v)
			}
		}
	}
	for i, a := range args {
		pieces(a)
		// Python's -m MOD (or -mMOD) runs MOD.py, or the package directory
		// MOD, of its first component, found first in the working directory.
		mod, ok := strings.CutPrefix(a, "-m")
		if ok && mod == "" && i+1 < len(args) {
			mod = args[i+1]
		}
		if top, _, _ := strings.Cut(mod, "."); ok && top != "" && !strings.HasPrefix(top, "-") {
			add(top + ".py")
			add(top)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		pieces(env[k])
	}
	return out
}

// isWordBreak: white space and the characters that end a word in a shell
// command or separate a search path's entries.
func isWordBreak(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune(";&|()<>'\"`,:", r)
}

// lookPath finds name as exec.LookPath does on Unix, in list's absolute
// entries only (exec refuses a program found through a relative one): the
// first existing non-directory with an execute bit, or "".
func lookPath(name, list string) string {
	for _, d := range filepath.SplitList(list) {
		if !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// inside reports whether the clean absolute p is in one of the roots.
func (b binder) inside(p string) bool {
	return slices.ContainsFunc(b.roots, func(r string) bool { return within(r, p) })
}

// bind computes the binding of a stdio server (command, args, env, cwd). A
// path the definition names is bound when it, or where its symlinks lead,
// lies inside the roots and is a regular file; a directory there is
// Unbound; anything else (a missing file, a program of the system) is not
// bound, so its appearing later changes the binding. Errors (too many
// files, too large, unreadable) may name paths: for a person.
func (b binder) bind(command string, args []string, env map[string]string, dir string) (Binding, error) {
	var out Binding
	for _, p := range b.named(command, args, env, dir) {
		lexical := b.inside(p)
		target, err := canonical(p)
		if err != nil {
			continue // missing, a dangling link or a loop: nothing runs it as a file
		}
		in := b.inside(target)
		if !lexical && !in {
			continue
		}
		st, err := os.Stat(target)
		switch {
		case err != nil:
			continue
		case st.IsDir():
			if !slices.Contains(out.Unbound, p) {
				out.Unbound = append(out.Unbound, p)
			}
			continue
		case !st.Mode().IsRegular():
			continue
		}
		if slices.ContainsFunc(out.Files, func(f BoundFile) bool { return f.Path == p }) {
			continue
		}
		f := BoundFile{Path: p}
		if target != p {
			f.Target = target
		}
		if in {
			if f.SHA256, err = hashFile(target); err != nil {
				return Binding{}, fmt.Errorf("%s %w", p, err)
			}
		}
		if len(out.Files) == MaxBoundFiles {
			return Binding{}, errBindTooMany
		}
		out.Files = append(out.Files, f)
	}
	slices.SortFunc(out.Files, func(a, b BoundFile) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(out.Unbound)
	return out, nil
}

// hashFile is the hex SHA-256 of the regular file at the canonical path,
// read as a stream, at most MaxBoundFileBytes. It is opened one component
// at a time without following symlinks, so a link swapped in after the
// check is not followed.
func hashFile(canon string) (string, error) {
	f, err := tools.OpenResolvedRead(canon)
	if err != nil {
		return "", errors.New("cannot be read")
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", errors.New("is not a regular file")
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, MaxBoundFileBytes+1))
	switch {
	case err != nil:
		return "", errors.New("cannot be read")
	case n > MaxBoundFileBytes:
		return "", errBindTooLarge
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// changedFile compares an approval's recorded files with the binding now:
// "" when they are the same, else the first path that differs (added,
// gone, changed, or leading elsewhere). A record from before files were
// bound has none, so a server that names a workspace file differs.
func changedFile(recorded, now []BoundFile) string {
	for i := 0; i < max(len(recorded), len(now)); i++ {
		switch {
		case i >= len(recorded):
			return now[i].Path
		case i >= len(now):
			return recorded[i].Path
		case recorded[i] != now[i]:
			return min(recorded[i].Path, now[i].Path)
		}
	}
	return ""
}

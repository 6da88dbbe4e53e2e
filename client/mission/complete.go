package mission

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"unicode"
)

// @path mentions: Tab after "@" and part of a path completes it from the
// workspace, as a shell completes a file name. Only workspace-relative
// paths: an absolute path, a "~", a ".." element or a path through a
// symbolic link out of the workspace completes nothing (os.Root refuses
// to leave it). Each completion reads one directory, at most
// maxDirEntries of its entries. One match completes whole (a directory
// with its "/"); several complete to their longest common prefix and are
// listed under the input, at most maxShownMatches.

const (
	maxDirEntries   = 1000
	maxShownMatches = 8
)

// dirEntry is one entry of a workspace directory.
type dirEntry struct {
	name string
	dir  bool
}

// listDir lists directory rel of the workspace (rel "" is its root).
type listDir func(rel string) ([]dirEntry, error)

// errOutside: the path is not a workspace-relative path.
var errOutside = errors.New("not a workspace-relative path")

// workspaceLister lists directories of root through os.Root, so that no
// path, symbolic links included, reaches outside it; at most
// maxDirEntries entries a directory.
func workspaceLister(root string) listDir {
	return func(rel string) ([]dirEntry, error) {
		r, err := os.OpenRoot(root)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		if rel == "" {
			rel = "."
		}
		f, err := r.Open(rel)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		entries, err := f.ReadDir(maxDirEntries)
		if err != nil && len(entries) == 0 {
			return nil, err
		}
		out := make([]dirEntry, 0, len(entries))
		for _, e := range entries {
			dir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				// A link completes as what it leads to inside the
				// workspace; one leading out of it (os.Root refuses it), or
				// nowhere, is left out.
				st, err := r.Stat(path.Join(rel, e.Name()))
				if err != nil {
					continue
				}
				dir = st.IsDir()
			}
			out = append(out, dirEntry{name: e.Name(), dir: dir})
		}
		return out, nil
	}
}

// mentionAt is the "@path" word that ends at the cursor: the path typed
// after "@" and where the word starts; ok false when the word there is
// not a mention.
func mentionAt(value []rune, pos int) (typed string, start int, ok bool) {
	start = pos
	for start > 0 && !unicode.IsSpace(value[start-1]) {
		start--
	}
	if start == pos || value[start] != '@' {
		return "", 0, false
	}
	return string(value[start+1 : pos]), start, true
}

// completeMention completes the typed path of a mention: the completed
// path (typed itself when nothing completes) and the matches when several
// remain. A directory match ends in "/".
func completeMention(typed string, list listDir) (completed string, matches []string, err error) {
	if typed != "" && (strings.HasPrefix(typed, "/") || strings.HasPrefix(typed, "~") || strings.ContainsRune(typed, '\\')) {
		return typed, nil, errOutside
	}
	dir, base := path.Split(typed)
	for _, el := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
		if el == ".." {
			return typed, nil, errOutside
		}
	}
	for _, r := range typed {
		if unicode.IsControl(r) {
			return typed, nil, errOutside
		}
	}
	entries, err := list(strings.TrimSuffix(dir, "/"))
	if err != nil {
		return typed, nil, err
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.name, base) || (strings.HasPrefix(e.name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		if strings.ContainsFunc(e.name, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) {
			continue // a name a mention cannot hold as one word
		}
		name := e.name
		if e.dir {
			name += "/"
		}
		matches = append(matches, name)
	}
	slices.Sort(matches)
	switch len(matches) {
	case 0:
		return typed, nil, nil
	case 1:
		return dir + matches[0], nil, nil
	}
	prefix := matches[0]
	for _, m := range matches[1:] {
		for !strings.HasPrefix(m, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	return dir + prefix, matches, nil
}

// completeKey handles Tab on a mention: it reports whether the word at
// the cursor was one.
func (m *Model) completeKey() bool {
	typed, start, ok := mentionAt(m.input.value, m.input.pos)
	if !ok || m.listDir == nil {
		return false
	}
	completed, matches, err := completeMention(typed, m.listDir)
	m.mentionMatches = nil
	if err != nil {
		m.mentionMatches = []string{"(no completion: " + mentionProblem(err) + ")"}
		return true
	}
	rs := []rune(completed)
	if len(matches) == 0 && !strings.HasSuffix(completed, "/") && completed != typed {
		rs = append(rs, ' ')
	}
	rest := append([]rune(nil), m.input.value[m.input.pos:]...)
	m.input.value = append(append(append([]rune(nil), m.input.value[:start+1]...), rs...), rest...)
	m.input.pos = start + 1 + len(rs)
	if len(matches) > maxShownMatches {
		matches = append(matches[:maxShownMatches:maxShownMatches], "…")
	}
	m.mentionMatches = matches
	return true
}

// mentionProblem says in words why a mention does not complete.
func mentionProblem(err error) string {
	if errors.Is(err, errOutside) {
		return "only paths inside the workspace"
	}
	return "no such directory in the workspace"
}

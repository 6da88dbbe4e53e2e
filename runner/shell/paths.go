package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/magi-code/magi-code/runner/protected"
)

// place is what a path is to the guard rail.
type place int

const (
	inside    place = iota // strictly inside the workspace or the temp directory
	workspace              // the workspace itself, or everything in it
	gitDir                 // version control metadata (.git, .hg, .jj...: protected.VCS) or something in it
	outside                // anything else, or not known
)

// maxMatches bounds the entries one glob is checked against.
const maxMatches = 1024

// where places the path an argument names. Unknown text is outside.
// follow says the command follows a symbolic link in the last component
// (chmod does, rm and find do not, unless the path ends in a slash).
// A glob is placed by everything it matches now and anything it could
// match in its directory later; * (or .*, ?*...) of the workspace is the
// workspace.
func (c *checker) where(f field, follow bool) place {
	p := c.abs(f)
	if p == "" {
		if f.known() && f.text == "" {
			return inside // rm "": nothing
		}
		return outside
	}
	if !f.glob || !strings.ContainsAny(p, "*?[") {
		return c.linkedOut(c.classify(resolve(p, follow)))
	}
	comps := strings.Split(p, "/")
	k := 0
	for k < len(comps) && !strings.ContainsAny(comps[k], "*?[") {
		k++
	}
	dir := strings.Join(comps[:k], "/")
	if dir == "" {
		dir = "/"
	}
	if (k == len(comps)-1 || k == len(comps)-2 && comps[k+1] == "") && allGlob(comps[k]) { // *, */
		if w := c.classify(resolve(dir, true)); w != inside {
			return w
		}
	}
	// Anything the glob may match later sits in dir.
	worst := c.classify(resolve(dir+"/x", true))
	if worst == outside {
		return outside
	}
	c.globs++
	if c.globs > maxGlobs {
		return outside
	}
	// Go's patterns differ: [!x] is [^x]; an extended glob is read as *,
	// which matches more.
	pattern := strings.ReplaceAll(strings.TrimRight(p, "/"), "[!", "[^")
	for _, op := range []string{"?(", "*(", "+(", "@(", "!("} {
		if strings.Contains(pattern, op) {
			return outside
		}
	}
	matches, err := filepath.Glob(pattern)
	if err != nil || len(matches) > maxMatches {
		return outside
	}
	followMatch := follow || strings.Count(p[len(dir):], "/") > 1
	for _, m := range matches {
		if w := c.classify(resolve(m, followMatch)); w > worst {
			worst = w
		}
	}
	return c.linkedOut(worst)
}

// linkedOut: after an ln in the same command line, a path inside may be a
// link the check cannot see yet, so it counts as outside.
func (c *checker) linkedOut(w place) place {
	if c.linked && w == inside {
		return outside
	}
	return w
}

// allGlob reports whether a path component matches (nearly) every entry:
// *, .*, *.*, ?*, .[!.]* and the like.
func allGlob(last string) bool {
	var rest strings.Builder
	for k := 0; k < len(last); k++ {
		switch last[k] {
		case '*', '?', '.':
		case '[':
			end := strings.IndexByte(last[k:], ']')
			if end < 0 {
				return false
			}
			k += end
		default:
			rest.WriteByte(last[k])
		}
	}
	return rest.Len() == 0 && strings.ContainsAny(last, "*?")
}

// classify places a clean, resolved absolute path. The innermost of the
// workspace, the temp directory and the home directory that holds it
// decides: inside the first two is inside, inside home is outside (a home
// directory below /tmp is still home).
func (c *checker) classify(p string) place {
	if p == "/" {
		return outside
	}
	for _, root := range c.ws {
		switch {
		case p == root:
			return workspace
		case within(p, root):
			return outside // a parent of the workspace
		}
	}
	if slices.ContainsFunc(strings.Split(p, "/"), protected.IsVCS) {
		return gitDir
	}
	best, verdict := "", outside
	consider := func(roots []string, v place) {
		for _, root := range roots {
			if within(root, p) && (p != root || v == outside) && len(root) >= len(best) {
				best, verdict = root, v
			}
		}
	}
	consider(c.ws, inside)
	consider(c.tmp, inside)
	consider(c.home, outside) // home itself too
	return verdict
}

// within reports whether p is root or below it. Both are clean and absolute.
func within(root, p string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

// lstatOK reports whether p exists (a link counts, dangling or not).
func lstatOK(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// clean is filepath.Clean, keeping "" for unknown.
func clean(p string) string {
	if p == "" {
		return ""
	}
	return filepath.Clean(p)
}

// resolve canonicalizes an absolute path as the kernel would walk it:
// each existing component's symbolic links are resolved before a later
// ".." applies to it; from the first missing component on, the rest is
// read lexically. follow says whether a link in the last component is
// followed (a trailing slash or "/." always follows).
func resolve(p string, follow bool) string {
	comps := strings.Split(p, "/")
	last := len(comps) - 1
	dest := "/"
	for i, comp := range comps {
		switch comp {
		case "", ".":
			continue
		case "..":
			dest = filepath.Dir(dest)
			continue
		}
		next := filepath.Join(dest, comp)
		if i == last && !follow {
			return next
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Clean(next + "/" + strings.Join(comps[i+1:], "/"))
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			dest = next
			continue
		}
		r, err := filepath.EvalSymlinks(next)
		if err != nil { // a dangling link or a loop: its text, then lexically
			t, err := os.Readlink(next)
			if err != nil {
				return filepath.Clean(next + "/" + strings.Join(comps[i+1:], "/"))
			}
			if !filepath.IsAbs(t) {
				t = dest + "/" + t
			}
			return filepath.Clean(t + "/" + strings.Join(comps[i+1:], "/"))
		}
		dest = r
	}
	return dest
}

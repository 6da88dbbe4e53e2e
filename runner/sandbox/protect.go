package sandbox

import (
	"io/fs"
	"path/filepath"
	"slices"
	"sync"

	"github.com/magi-code/magi-code/runner/protected"
)

// Protect returns the paths a command run in cwd must not write although
// the workspace, a temp directory or a writable root holds them: every
// version control system's metadata in the workspace (VCSDirs, walked
// once per workspace: .git, .hg, .jj... at the top and nested; unless
// vcsWritable: a version control command the person approved), the
// workspace's project settings (protected.ProjectConfig: .magi-code and
// .claude, which later sessions, magi-code's or Claude Code's, load), and
// mcHome (credentials, sessions, settings), when not "".
func Protect(cwd, mcHome string, vcsWritable bool) []string {
	var out []string
	if filepath.IsAbs(cwd) {
		if !vcsWritable {
			out = append(out, cachedVCSDirs(cwd)...)
		}
		for _, d := range protected.ProjectConfig {
			out = append(out, filepath.Join(cwd, d))
		}
	}
	if filepath.IsAbs(mcHome) {
		out = append(out, filepath.Clean(mcHome))
	}
	return out
}

// maxWalk bounds the entries VCSDirs visits below a workspace;
// maxVCSDirsCached the workspaces whose walk is kept.
const (
	maxWalk          = 200000
	maxVCSDirsCached = 64
)

// vcsDirsOf caches VCSDirs per workspace for the life of the process: the
// walk of a large tree takes seconds, and nested repositories seldom come
// and go (one cloned during the session is found at the next start). Each
// walk keeps the identity of what it found below the top: when one of them
// is gone or another file, the workspace is walked again, so a directory
// renamed with a repository in it (which read-only mounts, unlike per-entry
// grants, do not prevent) has that repository protected where it went.
var vcsDirsOf struct {
	sync.Mutex
	m map[string]vcsWalk
}

// vcsWalk is one cached walk: its paths, and the identities of the nested
// ones (those past the fixed top-level names) as the walk found them.
type vcsWalk struct {
	dirs   []string
	nested []fileID
}

// fileID is a file's device and inode; zero when it cannot be examined.
type fileID struct{ dev, ino uint64 }

// cachedVCSDirs is VCSDirs(cwd, maxWalk), walked once per cwd, and again
// when a nested path it found moved.
func cachedVCSDirs(cwd string) []string {
	vcsDirsOf.Lock()
	defer vcsDirsOf.Unlock()
	if w, ok := vcsDirsOf.m[cwd]; ok && w.current() {
		return w.dirs
	}
	if vcsDirsOf.m == nil {
		vcsDirsOf.m = map[string]vcsWalk{}
	}
	if _, ok := vcsDirsOf.m[cwd]; !ok && len(vcsDirsOf.m) >= maxVCSDirsCached {
		// A long-lived process (an editor's sessions over many projects)
		// keeps a bounded number of walks: any one is dropped and walked
		// again when its workspace comes back.
		for k := range vcsDirsOf.m {
			delete(vcsDirsOf.m, k)
			break
		}
	}
	dirs := VCSDirs(cwd, maxWalk)
	w := vcsWalk{dirs: dirs}
	for _, p := range dirs[len(protected.VCS):] {
		w.nested = append(w.nested, idOf(p))
	}
	vcsDirsOf.m[cwd] = w
	return dirs
}

// current reports whether every nested path of w is still the file the
// walk found.
func (w vcsWalk) current() bool {
	for i, p := range w.dirs[len(protected.VCS):] {
		if id := idOf(p); id == (fileID{}) || id != w.nested[i] {
			return false
		}
	}
	return true
}

// VCSDirs returns the version control metadata of the workspace cwd:
// cwd/NAME for every name of protected.VCS (present or not: one created
// later at the top stays protected), then every such name found below cwd
// within max entries (a directory, or a file such as the .git that points
// a submodule or worktree at its repository, or Fossil's checkout
// database): a nested repository's hooks and configuration run
// unconfined at the person's next command there, as the workspace's own
// do. A bare repository below cwd (objects, refs and HEAD, as git tells
// one) is protected whole: its hooks run when the person pushes to it. The
// walk follows no symbolic link, does not descend into metadata, and skips
// node_modules (package managers keep no repository there).
// Past max entries the rest of the tree is not searched.
func VCSDirs(cwd string, max int) []string {
	var out []string
	for _, name := range protected.VCS {
		out = append(out, filepath.Join(cwd, name))
	}
	top := len(out)
	n := 0
	_ = filepath.WalkDir(cwd, func(p string, d fs.DirEntry, err error) error {
		if n++; n > max {
			return fs.SkipAll
		}
		if err != nil || p == cwd {
			return nil
		}
		switch name := d.Name(); {
		case protected.IsVCS(name):
			if filepath.Dir(p) != cwd || !slices.Contains(out[:top], p) {
				out = append(out, p)
			}
			if d.IsDir() {
				return fs.SkipDir
			}
		case name == "node_modules" && d.IsDir():
			return fs.SkipDir
		case name == "HEAD" && d.Type().IsRegular() && filepath.Dir(p) != cwd && protected.BareRepository(filepath.Dir(p)):
			// A bare repository (a test fixture's remote, origin.git): its
			// hooks run when the person pushes to it.
			out = append(out, filepath.Dir(p))
			return fs.SkipDir // the rest of its directory
		}
		return nil
	})
	return out
}

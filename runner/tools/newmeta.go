package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/magi-code/magi-code/runner/protected"
)

// A confined command may create version control metadata or project
// configuration where there was none: a .git with a core.fsmonitor or hooks
// in a subdirectory, which the person's next git command there (or their
// shell prompt's git status) runs unconfined; a .claude with hooks; a bare
// repository. The sandbox cannot mount over what does not exist yet, so
// the shell tool compares the workspace before and after each confined
// command and moves what appeared aside (setAside). It keeps, per
// workspace, the directories below the top with their modification time
// and link count, and the metadata it has seen with its identity: before
// and after a command it examines every known directory and lists again
// only those that changed, so a command costs one lstat per directory
// twice, and a full walk happens once per workspace.

// maxTreeEntries bounds the entries the first walk of a workspace lists
// (an existing tree may be huge); a later look lists what changed without
// a bound, since what a command made cost it more to make than it costs
// to list. maxTreeDirs bounds the directories kept: past it, a new one is
// searched when it appears but not watched after. maxTrees bounds the
// workspaces kept. Variables, so tests can lower them.
var (
	maxTreeEntries = 200000
	maxTreeDirs    = 200000
	maxTrees       = 64
)

// metaTree is one workspace's known directories and metadata.
type metaTree struct {
	mu      sync.Mutex
	dirs    map[string]dirStamp    // directory -> as last listed
	meta    map[string]os.FileInfo // metadata path -> as last seen (its identity)
	entries int                    // entries listed in this look
}

// dirStamp is what tells a directory changed: a new or removed entry
// changes its modification and change times, and a new subdirectory its
// link count. The change time counts most: a command can put the
// modification time back (touch -d), never the change time.
type dirStamp struct {
	mtime, ctime int64
	nlink        uint64
}

var metaTrees struct {
	sync.Mutex
	m map[string]*metaTree
}

// treeOf is the tree of the workspace root, listed once when first asked.
func treeOf(root string) *metaTree {
	metaTrees.Lock()
	defer metaTrees.Unlock()
	if t, ok := metaTrees.m[root]; ok {
		return t
	}
	if metaTrees.m == nil {
		metaTrees.m = map[string]*metaTree{}
	}
	if len(metaTrees.m) >= maxTrees {
		for k := range metaTrees.m { // any one: listed again when it comes back
			delete(metaTrees.m, k)
			break
		}
	}
	t := &metaTree{dirs: map[string]dirStamp{}, meta: map[string]os.FileInfo{}}
	t.mu.Lock()
	t.list(root, nil)
	t.mu.Unlock()
	metaTrees.m[root] = t
	return t
}

// newMetadata brings t up to date with the disk below root and returns the
// metadata paths that appeared since it was last up to date: a name of
// protected.VCS or protected.ProjectConfig (in any letter case), or a bare
// repository, at any depth, that is neither a known one nor one moved
// (the same file under a new name). Directories that vanished are
// forgotten. The walk follows no symbolic link and skips node_modules and
// the inside of metadata.
func (t *metaTree) newMetadata(root string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var found []string
	t.entries = 0
	dirs := make([]string, 0, len(t.dirs))
	for d := range t.dirs {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		if st, isDir := stampOf(d); !isDir || st != t.dirs[d] {
			t.list(d, &found) // a directory no more is forgotten there
		}
	}
	// The workspace gone at an earlier look and back.
	if _, ok := t.dirs[root]; !ok {
		t.list(root, &found)
	}
	// Metadata seen before and now gone (or replaced) is forgotten only
	// now, so that one moved anywhere in the tree was recognised.
	for p, was := range t.meta {
		if !sameFileAt(p, was) {
			delete(t.meta, p)
		}
	}
	return found
}

// list lists directory d (stamped first, so a change while it is listed
// shows next time), notes its metadata, appending what is new to found
// (nil: the first walk, nothing is new), and lists each subdirectory not
// yet known, as it reads them: memory stays bounded by the depth, not by
// a directory's size. A subdirectory gone is forgotten by newMetadata,
// which examines every known one.
func (t *metaTree) list(d string, found *[]string) {
	st, isDir := stampOf(d)
	if !isDir {
		delete(t.dirs, d) // gone: what was below is visited and dropped too
		return
	}
	if _, known := t.dirs[d]; known || len(t.dirs) < maxTreeDirs {
		t.dirs[d] = st
	}
	f, err := os.Open(d)
	if errors.Is(err, fs.ErrPermission) {
		// A command may take its own directory's read bit away (chmod
		// 311) to hide a .git in it from this listing, which git still
		// finds by name: the owner's read and search bits come back.
		if fi, lerr := os.Lstat(d); lerr == nil && os.Chmod(d, fi.Mode().Perm()|0o500) == nil {
			f, err = os.Open(d)
		}
	}
	if err != nil {
		return
	}
	defer f.Close()
	for {
		if found == nil && t.entries >= maxTreeEntries {
			return
		}
		chunk, err := f.ReadDir(256)
		t.entries += len(chunk)
		for _, e := range chunk {
			p := filepath.Join(d, e.Name())
			isMeta := protected.IsVCS(e.Name()) || slices.ContainsFunc(protected.ProjectConfig, func(n string) bool { return strings.EqualFold(n, e.Name()) })
			if !isMeta && e.IsDir() && protected.BareRepository(p) {
				isMeta = true
			}
			if !isMeta && e.Type()&fs.ModeSymlink != 0 {
				isMeta = linksToRepository(p)
			}
			if isMeta {
				t.noteMeta(p, found)
				continue
			}
			if e.IsDir() && e.Name() != "node_modules" {
				if _, known := t.dirs[p]; !known {
					t.list(p, found)
				}
			}
		}
		if err != nil || len(chunk) == 0 {
			break
		}
	}
	// A directory the command made a bare repository of (HEAD, objects and
	// refs put in an existing src/): git run there takes it for one and
	// runs its config (aliases, core.pager). Its HEAD is what makes it one.
	// A workspace that is itself one when first walked stays as it is.
	if protected.BareRepository(d) {
		if _, known := t.meta[d]; !known && found != nil {
			*found = append(*found, filepath.Join(d, "HEAD"))
		} else if found == nil {
			t.noteMeta(d, nil)
		}
	}
}

// linksToRepository reports whether p, a symbolic link, leads to a
// directory holding version control metadata at its top, or a bare
// repository: the person who enters the link (cd p) and runs git there
// runs that repository's configuration, wherever the link leads (a
// confined command may make one in the temp directory). The walk does not
// follow links; this looks one level through them.
func linksToRepository(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return false
	}
	for _, name := range protected.VCS {
		if _, err := os.Lstat(filepath.Join(p, name)); err == nil {
			return true
		}
	}
	return protected.BareRepository(p)
}

// noteMeta records metadata at p; with found (not the first listing) one
// that is neither known there nor a known one moved (the same file, no
// longer where it was known: a hard link to a gitfile is a new one) is
// new.
func (t *metaTree) noteMeta(p string, found *[]string) {
	fi, err := os.Lstat(p)
	if err != nil {
		return
	}
	if _, known := t.meta[p]; known {
		t.meta[p] = fi
		return
	}
	moved := false
	for q, was := range t.meta {
		if os.SameFile(fi, was) && !sameFileAt(q, was) {
			delete(t.meta, q)
			moved = true
			break
		}
	}
	t.meta[p] = fi
	if found != nil && !moved {
		*found = append(*found, p)
	}
}

// sameFileAt reports whether path p still names the file was.
func sameFileAt(p string, was os.FileInfo) bool {
	fi, err := os.Lstat(p)
	return err == nil && os.SameFile(fi, was)
}

// repositories are the work trees of the git repositories below the top
// that t knows (each directory holding a .git), sorted.
func (t *metaTree) repositories() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for p := range t.meta {
		if strings.EqualFold(filepath.Base(p), ".git") {
			out = append(out, filepath.Dir(p))
		}
	}
	slices.Sort(out)
	return out
}

// stampOf is directory d's stamp; isDir is false when d is no longer a
// directory (or cannot be examined). A link is not followed.
func stampOf(d string) (dirStamp, bool) {
	fi, err := os.Lstat(d)
	if err != nil || !fi.IsDir() {
		return dirStamp{}, false
	}
	return dirStamp{mtime: fi.ModTime().UnixNano(), ctime: changeTime(fi), nlink: linkCount(fi)}, true
}

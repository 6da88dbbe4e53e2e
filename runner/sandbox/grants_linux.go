//go:build linux

package sandbox

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// maxEntries bounds the entries grants reads from one directory it carves;
// a directory with more is granted nothing (fail closed: fewer writes).
const maxEntries = 4096

// grants returns what the launcher opens for writing: whole directories
// (dirs) and single files (files), given the writable directories and the
// protected paths (Policy). Landlock only grants access, and a grant on a
// directory covers everything below it, so a writable directory holding a
// protected path cannot be granted whole: it is granted entry by entry,
// each entry leading to a protected path carved the same way, the
// protected path itself left out. In a carved directory nothing can be
// created, removed or renamed (that needs a grant on the directory itself);
// its existing files can be written.
//
// Paths are compared with their symbolic links resolved, so a protected
// path reached through a link (MC_HOME=~/link) is found where it lies. A
// writable directory that is or lies below a protected path is dropped.
// Missing directories and protected paths are skipped. In a carved
// directory, a symbolic link is not granted (a grant follows it, to
// anywhere), nor a file with more than one hard link (writing it would
// change the file another path outside names), nor anything but regular
// files and directories.
func grants(writable, protected []string) (dirs, files []string) {
	var prot []string
	for _, p := range protected {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			prot = append(prot, r)
		}
	}
	for _, w := range writable {
		r, err := filepath.EvalSymlinks(w)
		if err != nil {
			continue
		}
		switch {
		case slices.ContainsFunc(prot, func(p string) bool { return within(p, r) }):
			// the directory is protected, or lies in a protected one
		case slices.ContainsFunc(prot, func(p string) bool { return within(r, p) }):
			d, f := carve(r, prot)
			dirs, files = append(dirs, d...), append(files, f...)
		default:
			dirs = append(dirs, r)
		}
	}
	return dirs, files
}

// readGrants returns what the launcher opens for reading when the paths
// of unreadable (resolved; missing ones skipped) must not be read: the
// file system from / carved around them as grants carves a writable
// directory (a directory on the way to one is granted entry by entry, the
// path itself left out, and so are symbolic links, which Landlock checks
// where they lead, and files with more than one hard link). ok is false
// when no such path exists: then everything may be read.
func readGrants(unreadable []string) (dirs, files []string, ok bool) {
	var prot []string
	for _, p := range unreadable {
		if !filepath.IsAbs(p) {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			prot = append(prot, r)
		}
	}
	if len(prot) == 0 {
		return nil, nil, false
	}
	if slices.Contains(prot, "/") {
		return nil, nil, true
	}
	dirs, files = carve("/", prot)
	return dirs, files, true
}

// carve grants the entries of dir, a resolved directory holding a
// protected path strictly below it, except the protected ones.
func carve(dir string, prot []string) (dirs, files []string) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, nil
	}
	entries, err := f.ReadDir(maxEntries + 1)
	f.Close()
	if (err != nil && err != io.EOF) || len(entries) > maxEntries {
		return nil, nil
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case slices.Contains(prot, p):
		case e.Type()&os.ModeSymlink != 0:
		case e.IsDir() && slices.ContainsFunc(prot, func(q string) bool { return within(p, q) }):
			d, f := carve(p, prot)
			dirs, files = append(dirs, d...), append(files, f...)
		case e.IsDir():
			dirs = append(dirs, p)
		case e.Type().IsRegular() && singleLink(p):
			files = append(files, p)
		}
	}
	return dirs, files
}

// singleLink reports whether the regular file p has exactly one hard link.
func singleLink(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Nlink == 1
}

// within reports whether p is root or below it; both clean and absolute.
func within(root, p string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

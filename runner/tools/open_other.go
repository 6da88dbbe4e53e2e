//go:build !(linux || darwin)

package tools

import (
	"io"
	"os"
	"path/filepath"
)

// Elsewhere there is no O_NONBLOCK or O_NOFOLLOW to ask for: the opens
// below follow symlinks and may block on special files. The type checks
// around them still refuse anything that is not a directory or a regular
// file before reading it.

func openDir(p string) (*os.File, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, errNotDir
	}
	return os.Open(p)
}

func openResolved(real string, flag int, perm os.FileMode, mkdirs bool) (*os.File, error) {
	if mkdirs {
		if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
			return nil, err
		}
	}
	return os.OpenFile(real, flag, perm)
}

func openDirResolved(real string) (*os.File, error) { return openDir(real) }

// linkCount is 1 here: hard links are not counted on this platform.
func linkCount(os.FileInfo) uint64 { return 1 }

func replaceFile(real string, data io.Reader, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(real), "."+filepath.Base(real)+".magi-tmp-")
	if err != nil {
		return err
	}
	_, err = io.Copy(f, data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), real)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// openChild opens the entry name of directory d by path: a symlink there
// is refused by its type before the open.
func openChild(d *os.File, name string, dir bool) (*os.File, error) {
	p := filepath.Join(d.Name(), name)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if dir {
		if !fi.IsDir() {
			return nil, errNotDir
		}
		return openDir(p)
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	return os.Open(p)
}

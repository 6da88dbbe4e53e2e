//go:build !(linux || darwin)

package tools

import (
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

func openNoFollow(p string) (*os.File, error) { return os.Open(p) }

func openResolved(real string, flag int, perm os.FileMode, mkdirs bool) (*os.File, error) {
	if mkdirs {
		if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
			return nil, err
		}
	}
	return os.OpenFile(real, flag, perm)
}

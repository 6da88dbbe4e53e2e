package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// Bounds on what startup reads. docs/protocol.md, Bounds: "Each parse is limited"; we bound every
// file and every directory listing so a hostile workspace cannot make startup
// slow or large.
const (
	MaxFileBytes        = 1 << 20 // per settings, instruction, skill, profile or auth file
	MaxInstructionFiles = 64      // AGENTS.md files plus listed paths
	MaxDirEntries       = 256     // per skills/ or agents/ directory
	MaxApprovalsPerName = 64      // remembered approved digests per MCP server name
)

var (
	errTooLarge   = errors.New("file exceeds size bound")
	errNotRegular = errors.New("not a regular file")
	errInsecure   = errors.New("file is readable by group or others")
)

// readBounded reads a whole regular file of at most MaxFileBytes. A missing
// file is reported with an error satisfying errors.Is(err, fs.ErrNotExist).
func readBounded(path string) ([]byte, os.FileMode, error) {
	// Never open a FIFO or device for reading: open(2) would block until a
	// writer appears, and no context can interrupt it. Check the type
	// first, then open without blocking and check the file we got.
	if st, err := os.Stat(path); err != nil {
		return nil, 0, err
	} else if !st.Mode().IsRegular() {
		return nil, 0, errNotRegular
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	return readOpened(f, nil)
}

// readOpened reads the whole of f, opened without blocking, when it is a
// regular file of at most MaxFileBytes and refuse (when set) says nothing
// against it.
func readOpened(f *os.File, refuse func(*os.File, os.FileInfo) error) ([]byte, os.FileMode, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, errNotRegular
	}
	if refuse != nil {
		if err := refuse(f, st); err != nil {
			return nil, 0, err
		}
	}
	if st.Size() > MaxFileBytes {
		return nil, 0, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, 0, err
	}
	if len(data) > MaxFileBytes {
		return nil, 0, errTooLarge
	}
	return data, st.Mode().Perm(), nil
}

// ReadPrivate reads a whole regular file of at most MaxFileBytes that must
// be private to its owner (no group or other permission bits): settings
// approvals and the credential store (runner/auth). On Windows permission
// bits carry no such meaning and the check is skipped. A missing file is
// reported with an error satisfying errors.Is(err, fs.ErrNotExist).
func ReadPrivate(path string) ([]byte, error) {
	data, perm, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	if runtime.GOOS != "windows" && perm&0o077 != 0 {
		return nil, fmt.Errorf("%s: %w; run `chmod 600 %s` to make it private", path, errInsecure, path)
	}
	return data, nil
}

// WriteAtomic replaces path with data, mode perm: a temporary file in the
// same directory, fsynced, renamed over path, then the directory fsynced. A
// reader sees the old file or the new one, never a partial one. Concurrent
// writers of one path need a lock of their own (runner/auth holds one).
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	// A file that is a symbolic link (settings or credentials kept in a
	// dotfiles checkout) stays one: the file it points to is replaced.
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if target, err := canonical(path); err == nil {
			path = target
		}
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := tmp.Chmod(perm); err != nil && runtime.GOOS != "windows" {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // best effort: not every platform syncs directories
		d.Close()
	}
	return nil
}

// canonical returns the absolute, symlink-free form of an existing path.
func canonical(path string) (string, error) {
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}

// resolvePath makes a settings path absolute: "~/" is the user's home, a
// relative path is relative to base (the directory of the defining file).
func resolvePath(p, base, home string) string {
	switch {
	case p == "~" && home != "":
		return home
	case strings.HasPrefix(p, "~/") && home != "":
		return filepath.Join(home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	default:
		return filepath.Join(base, p)
	}
}

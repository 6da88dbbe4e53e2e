package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/magi-code/magi-code/runner/tools"
)

// Files that steer the model (instruction files, skills, agent profiles)
// go to the provider verbatim, so each is read only when the file it
// resolves to may be: see scope.check. A repository's files cannot put a
// credential file, the process's own environment (/proc/self/environ) or
// a file outside the workspace in front of the model, whatever symlink or
// ".." leads there.

// scope is where one document file may resolve.
type scope struct {
	// root is the canonical directory the file must resolve inside: the
	// workspace (the cwd) for a project file, the directory of a parent
	// AGENTS.md, MC_HOME (or ~/.claude) for a global file, "/" for a path
	// the global settings list.
	root string
	// mcHome, when set, is refused: a project file never resolves into
	// MC_HOME (credentials, settings, sessions).
	mcHome string
}

// Reasons a document file is refused, in words for people (config show,
// the diagnostic log).
var (
	errSystemFile     = errors.New("resolves to a file under /proc, /sys or /dev, which is never read as an instruction, skill or profile")
	errCredentialFile = errors.New("resolves to a credential file, which is never read as an instruction, skill or profile")
	errNotMarkdown    = errors.New("does not resolve to a Markdown (.md) file")
	errInMCHome       = errors.New("resolves into MC_HOME, which a project file may not read")
	errSpecialFS      = errors.New("is on a kernel file system (proc, sysfs...), which is never read as an instruction, skill or profile")
	errHardLink       = errors.New("is a hard link (another path names the same file, perhaps outside the workspace), which a project file may not be")
)

// outsideError says where the file should have resolved.
type outsideError struct{ root string }

func (e outsideError) Error() string {
	return "resolves outside " + e.root + " (symlinks and .. followed); only files inside it are read"
}

// refused reports whether err is a refusal of check (not a missing or
// unreadable file).
func refused(err error) bool {
	var o outsideError
	return errors.Is(err, errSystemFile) || errors.Is(err, errCredentialFile) || errors.Is(err, errNotMarkdown) ||
		errors.Is(err, errInMCHome) || errors.Is(err, errSpecialFS) || errors.Is(err, errHardLink) || errors.As(err, &o)
}

// check decides whether canon, the canonical (symlink-free, absolute) form
// of path, may be read in scope s. Every rule applies to the resolved
// file; the credential rule to the path as found too.
func (s scope) check(path, canon string) error {
	for _, sys := range []string{"/proc", "/sys", "/dev"} {
		if within(sys, canon) {
			return errSystemFile
		}
	}
	if tools.IsCredentialFile(canon) || tools.IsCredentialFile(filepath.Clean(path)) {
		return errCredentialFile
	}
	if !strings.EqualFold(filepath.Ext(canon), ".md") {
		return errNotMarkdown
	}
	if s.mcHome != "" && within(s.mcHome, canon) {
		return errInMCHome
	}
	if !within(s.root, canon) {
		return outsideError{root: s.root}
	}
	return nil
}

// within reports whether the clean absolute path p is root or below it.
func within(root, p string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

// onKernelFS is kernelFS; tests replace it to see readDocument consult it.
var onKernelFS = kernelFS

// readDocument reads the document file at path when scope s admits it. It
// returns its canonical path and contents (at most MaxFileBytes). A missing
// file satisfies errors.Is(err, fs.ErrNotExist); a refused one, refused.
// The file is opened by its checked canonical path one component at a
// time without following symlinks, so a link swapped in after the check is
// not followed; a file on a kernel file system is refused after the open
// whatever its path, and so is a project file with more than one hard link
// (a link to a file outside the workspace that no path check can see).
func readDocument(path string, s scope) (string, []byte, error) {
	canon, err := canonical(path)
	if err != nil {
		return "", nil, err
	}
	if err := s.check(path, canon); err != nil {
		return canon, nil, err
	}
	// Only a regular file is opened at all (a FIFO opened even without
	// blocking has a reader a writer could wait for); the open's own type
	// check below covers a file swapped in between.
	if st, err := os.Stat(canon); err != nil {
		return canon, nil, err
	} else if !st.Mode().IsRegular() {
		return canon, nil, errNotRegular
	}
	f, err := tools.OpenResolvedRead(canon)
	if err != nil {
		return canon, nil, err
	}
	defer f.Close()
	data, _, err := readOpened(f, func(f *os.File, st os.FileInfo) error {
		if onKernelFS(f) {
			return errSpecialFS
		}
		if s.mcHome != "" && hardLinked(st) {
			return errHardLink
		}
		return nil
	})
	return canon, data, err
}

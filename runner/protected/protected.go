// Package protected names the workspace paths that no command or tool call
// the person did not approve may change, because what they hold later runs
// outside the OS sandbox or is the workspace's history: version control
// metadata (VCS), the settings of later sessions (ProjectConfig), and,
// where the workspace holds the home directory, the person's
// configuration and caches there (HomeConfig). The
// OS sandbox (runner/sandbox) keeps them read-only to confined commands;
// the file tools (runner/tools) refuse to write into them; the shell guard
// rail (runner/shell) counts a recursive delete of metadata as destructive.
// This is the one list all three read.
package protected

import (
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// VCS are the names of version control metadata, a directory or a file,
// wherever it lies in the workspace. Each holds history, uncommitted
// state, or configuration that the person's next command of that system
// runs unconfined:
//
//   - .git: git's repository, or the file pointing a worktree or submodule
//     at one (hooks, core.fsmonitor, core.pager, aliases).
//   - .hg: Mercurial's repository, and Sapling's in a Mercurial-format
//     checkout (.hg/hgrc: [hooks], [extensions] loading Python from any
//     path, [alias] with shell commands, [ui] editor and merge tools).
//   - .sl: Sapling's repository (.sl/config: the same sections as hgrc).
//   - .jj: jj's repository (.jj/repo/config.toml: aliases, ui.pager,
//     ui.editor, merge tools, fix tools; the operation log and, for a
//     repository not colocated with git, its git store).
//   - .pijul: Pijul's repository (.pijul/config: [hooks] commands run at
//     record).
//   - _darcs: Darcs' repository (_darcs/prefs/defaults: prehook and
//     posthook commands of any darcs command).
//   - .bzr: Bazaar's and Breezy's branch and repository (history; and
//     branch.conf, which names post-commit hooks).
//   - .fslckout and _FOSSIL_ (its name on Windows): Fossil's checkout
//     database, which names the repository database Fossil opens, and so
//     the settings it runs (hooks, diff-command, editor), and holds the
//     checkout's uncommitted state.
//
// Subversion's .svn and CVS's CVS directories are not listed: they hold
// no configuration that runs, and the history lies on the server.
var VCS = []string{".git", ".hg", ".sl", ".jj", ".pijul", "_darcs", ".bzr", ".fslckout", "_FOSSIL_"}

// ProjectConfig are the directories whose files a later session or child
// loads as settings or instructions: magi-code's own (settings.toml,
// skills, agents) and Claude Code's, since magi-code loads .claude/skills
// and Claude Code, run next in the same checkout, loads the rest of it
// (settings.json with its hooks, which run unconfined, agents, commands).
var ProjectConfig = []string{".magi-code", ".claude"}

// IsVCS reports whether name, one path component, is version control
// metadata (VCS). Letter case is ignored: macOS and Windows file systems
// do, so .HG is .hg there.
func IsVCS(name string) bool {
	return slices.ContainsFunc(VCS, func(v string) bool { return strings.EqualFold(v, name) })
}

// BareRepository reports whether dir is a git repository without a work
// tree, as git itself tells one: objects and refs directories, and a HEAD
// that holds a symbolic ref or an object name. Such a directory, whatever
// its name (a test fixture's origin.git), is metadata too: its hooks run
// when the person pushes to it.
func BareRepository(dir string) bool {
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Lstat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, "HEAD"), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 128)
	n, _ := io.ReadFull(f, b)
	head := strings.TrimSpace(string(b[:n]))
	if strings.HasPrefix(head, "ref: refs/") {
		return true
	}
	_, err = hex.DecodeString(head)
	return err == nil && (len(head) == 40 || len(head) == 64)
}

// homeVisible are the entries of a home directory, not hidden, whose
// contents later run outside the sandbox: Go's default GOPATH (its module
// cache and installed binaries) and the bin directory a login shell's
// profile puts on PATH.
var homeVisible = []string{"go", "bin"}

// maxHomeEntries bounds the entries HomeConfig reads of one directory.
const maxHomeEntries = 4096

// HomeConfig returns the paths of home that hold the person's
// configuration and caches, which their next shell, editor, build or
// commit runs or trusts unconfined: every hidden entry of home (~/.bashrc,
// ~/.profile, ~/.gitconfig, ~/.config, ~/.local, ~/.cache, ~/.cargo,
// ~/.npm, ~/.ssh...) and homeVisible (~/go, ~/bin). A writable directory
// keeps them writable only where one of keep (the confined commands' own
// caches, below ~/.cache) lies in one: that entry is replaced by its own
// entries but the one on the way, recursively. For a workspace or temp
// directory that holds home itself (an agent started in ~, HOME below
// /tmp): otherwise none of them is writable anyway. Missing entries are
// not listed; none when home is not absolute.
func HomeConfig(home string, keep []string) []string {
	if !filepath.IsAbs(home) {
		return nil
	}
	home = filepath.Clean(home)
	var out []string
	var add func(p string)
	add = func(p string) {
		for _, k := range keep {
			if k := filepath.Clean(k); k != p && (strings.HasPrefix(k, p+"/")) {
				// A kept directory lies below p: protect p's other entries.
				for _, e := range Entries(p) {
					add(filepath.Join(p, e))
				}
				return
			}
		}
		if !slices.ContainsFunc(keep, func(k string) bool { return filepath.Clean(k) == p }) {
			out = append(out, p)
		}
	}
	for _, e := range Entries(home) {
		if HomeConfigName(e) {
			add(filepath.Join(home, e))
		}
	}
	return out
}

// HomeConfigName reports whether name, an entry of a home directory, is
// its configuration or caches (HomeConfig): a hidden one, or homeVisible
// in any letter case (a case-insensitive file system, macOS's, finds ~/Go
// as ~/go).
func HomeConfigName(name string) bool {
	return strings.HasPrefix(name, ".") || slices.ContainsFunc(homeVisible, func(v string) bool { return strings.EqualFold(v, name) })
}

// Entries lists up to maxHomeEntries names of directory d, sorted; none
// when d is not a directory that can be read.
func Entries(d string) []string {
	f, err := os.Open(d)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(maxHomeEntries)
	slices.Sort(names)
	return names
}

// Homes are the home directories whose configuration a command run with
// env may reach: env's HOME (its last entry) and this process's, when they
// differ; absolute and clean ones only.
func Homes(env []string) []string {
	var homes []string
	for _, kv := range slices.Backward(env) {
		if h, ok := strings.CutPrefix(kv, "HOME="); ok {
			if filepath.IsAbs(h) {
				homes = append(homes, filepath.Clean(h))
			}
			break
		}
	}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) && !slices.Contains(homes, filepath.Clean(h)) {
		homes = append(homes, filepath.Clean(h))
	}
	return homes
}

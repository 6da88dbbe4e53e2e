package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/protected"
)

// TestVCSDirs: every version control system's metadata at the top of the
// workspace, present or not, and every one below it, a directory or a
// file (a submodule's .git, Fossil's checkout database), in any depth; not
// look-alikes (.hgignore, .hgtags, x.hg, .jjx), not what lies in metadata,
// in node_modules or behind a symbolic link; the walk stops at its bound.
func TestVCSDirs(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{"a/b/inner/.git/hooks", "a/b/inner/.git/modules/x/.git", "c/.git", "node_modules/pkg/.git", "node_modules/pkg/.hg",
		"src/deep/er/still/r/.git", "ws-old", "hg/.hg/store", "hg/.hg/x/.jj", "jj/.jj/repo", "jj/.git", "sapling/.sl", "p/.pijul",
		"d/_darcs/prefs", "b/.bzr/branch", "x.hg", ".jjx"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Bare repositories, as git tells one, and look-alikes.
	for name, head := range map[string]string{"origin.git": "ref: refs/heads/main\n", "bare2": strings.Repeat("a", 40) + "\n",
		"nohead": "", "badhead": "hello\n", "norefs": "ref: refs/heads/main\n"} {
		subs := []string{"objects", "refs", "hooks"}
		switch name {
		case "norefs":
			subs = subs[:1]
		case "origin.git", "bare2":
			subs = append(subs, "objects/.jj") // not descended into: no .jj found there
		}
		for _, d := range subs {
			if err := os.MkdirAll(filepath.Join(ws, name, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if name != "nohead" {
			if err := os.WriteFile(filepath.Join(ws, name, "HEAD"), []byte(head), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, f := range []string{"sub.git", ".hgignore", ".hgtags", "f/.fslckout", "w/_FOSSIL_"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(ws, "mod"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "mod", ".git"), []byte("gitdir: ../.git/modules/mod\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"r/.git", "r/.hg", "r/.jj"} {
		if err := os.MkdirAll(filepath.Join(outside, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "r"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	got := VCSDirs(ws, maxWalk)
	var want []string
	for _, name := range protected.VCS {
		want = append(want, filepath.Join(ws, name))
	}
	top := len(want)
	for _, p := range []string{"a/b/inner/.git", "b/.bzr", "bare2", "c/.git", "d/_darcs", "f/.fslckout", "hg/.hg", "jj/.git", "jj/.jj",
		"mod/.git", "origin.git", "p/.pijul", "sapling/.sl", "src/deep/er/still/r/.git", "w/_FOSSIL_"} {
		want = append(want, filepath.Join(ws, p))
	}
	if !slices.Equal(got, want) {
		t.Errorf("VCSDirs =\n %q; want\n %q", got, want)
	}
	if got := VCSDirs(ws, 3); len(got) >= len(want) {
		t.Errorf("VCSDirs within 3 entries = %q; want the walk to stop", got)
	}
	// Present at the top: listed once.
	if err := os.Mkdir(filepath.Join(ws, ".hg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := VCSDirs(ws, maxWalk); !slices.Equal(got, want) {
		t.Errorf("VCSDirs with .hg at the top =\n %q; want\n %q", got, want)
	}
	if got := Protect(ws, "", false); !slices.Equal(got[:len(want)], want) {
		t.Errorf("Protect = %q; want the metadata %q first", got, want)
	}
	// Walked once per workspace: another workspace gets its own.
	ws2 := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws2, "x", ".jj"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Protect(ws2, "", false); !slices.Contains(got, filepath.Join(ws2, "x", ".jj")) || slices.Contains(got, want[top]) {
		t.Errorf("Protect of a second workspace = %q; want its own nested .jj", got)
	}
	got = Protect(ws, "/mc", true)
	if slices.ContainsFunc(got, func(p string) bool { return protected.IsVCS(filepath.Base(p)) }) {
		t.Errorf("Protect with vcsWritable = %q; want no version control metadata", got)
	}
	if want := []string{filepath.Join(ws, ".magi-code"), filepath.Join(ws, ".claude"), "/mc"}; !slices.Equal(got, want) {
		t.Errorf("Protect with vcsWritable = %q; want %q", got, want)
	}
}

// TestVCSDirsCacheBounded: the walks kept for a long-lived process are
// bounded however many workspaces it serves.
func TestVCSDirsCacheBounded(t *testing.T) {
	root := t.TempDir()
	for i := range maxVCSDirsCached + 6 {
		dir := filepath.Join(root, strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cachedVCSDirs(dir)
	}
	vcsDirsOf.Lock()
	n := len(vcsDirsOf.m)
	vcsDirsOf.Unlock()
	if n > maxVCSDirsCached {
		t.Fatalf("%d walks kept, bound %d", n, maxVCSDirsCached)
	}
}

package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/magi-code/magi-code/internal/ostest"
)

// TestMetaTree: the workspace's tree knows its metadata after the first
// listing (nothing is new then), finds what appears at any depth once,
// recognises metadata moved elsewhere in it, skips node_modules, forgets
// metadata and directories that are gone, and lists again only what
// changed.
func TestMetaTree(t *testing.T) {
	ws := ostest.OutsideTemp(t)
	mk := func(rel ...string) {
		t.Helper()
		for _, r := range rel {
			if err := os.MkdirAll(filepath.Join(ws, r), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk(".git", "a/.hg", "a/b", "node_modules/x/.git", "fx/o.git/objects", "fx/o.git/refs", "keep")
	if err := os.WriteFile(filepath.Join(ws, "fx/o.git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &metaTree{dirs: map[string]dirStamp{}, meta: map[string]os.FileInfo{}}
	tr.list(ws, nil)
	known := func() []string {
		var out []string
		for p := range tr.meta {
			r, _ := filepath.Rel(ws, p)
			out = append(out, r)
		}
		slices.Sort(out)
		return out
	}
	if got, want := known(), []string{".git", "a/.hg", "fx/o.git"}; !slices.Equal(got, want) {
		t.Fatalf("known metadata %q; want %q", got, want)
	}
	if got := tr.newMetadata(ws); got != nil {
		t.Errorf("nothing changed: newMetadata = %q", got)
	}
	if got, want := tr.repositories(), []string{ws}; !slices.Equal(got, want) {
		t.Errorf("repositories = %q; want %q", got, want)
	}
	step := func(what string, change func(), want ...string) {
		t.Helper()
		change()
		got := tr.newMetadata(ws)
		for i := range got {
			got[i], _ = filepath.Rel(ws, got[i])
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: newMetadata = %q; want %q", what, got, want)
		}
	}
	step("new below", func() { mk("a/b/.git") }, "a/b/.git")
	if got, want := tr.repositories(), []string{ws, filepath.Join(ws, "a/b")}; !slices.Equal(got, want) {
		t.Errorf("repositories = %q; want %q", got, want)
	}
	step("again", func() {})
	step("a new tree", func() { mk("n/m/.jj", "n/m/.Claude") }, "n/m/.Claude", "n/m/.jj")
	step("moved", func() {
		if err := os.Rename(filepath.Join(ws, "a/b"), filepath.Join(ws, "keep/b")); err != nil {
			t.Fatal(err)
		}
	})
	if _, ok := tr.dirs[filepath.Join(ws, "a/b")]; ok {
		t.Error("a/b is still known after it moved")
	}
	step("removed", func() {
		if err := os.RemoveAll(filepath.Join(ws, "a/.hg")); err != nil {
			t.Fatal(err)
		}
	})
	if got, want := known(), []string{".git", "fx/o.git", "keep/b/.git", "n/m/.Claude", "n/m/.jj"}; !slices.Equal(got, want) {
		t.Errorf("known metadata %q; want %q", got, want)
	}
	step("node_modules skipped", func() { mk("node_modules/y/.git") })
	step("a directory become a file", func() {
		if err := os.RemoveAll(filepath.Join(ws, "n")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "n"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	for d := range tr.dirs {
		if r, _ := filepath.Rel(ws, d); r == "n" || r == "n/m" {
			t.Errorf("%s is still known", r)
		}
	}
	// The workspace itself made anew: what it holds is new.
	step("the workspace gone", func() {
		if err := os.Rename(ws, ws+".old"); err != nil {
			t.Fatal(err)
		}
	})
	if len(tr.dirs) != 0 {
		t.Errorf("the workspace is gone, %d directories still known", len(tr.dirs))
	}
	step("the workspace made anew", func() { mk(".hg") }, ".hg")
	// Only a changed directory is listed again: one whose entries changed
	// behind a stamp made to look unchanged is not.
	step("unchanged", func() {})
	if tr.entries != 0 {
		t.Errorf("listed %d entries with nothing changed", tr.entries)
	}
}

// BenchmarkNewMetadata: one look at an unchanged workspace of 2,000
// directories holding 10 files each (a confined command takes two).
func BenchmarkNewMetadata(b *testing.B) {
	ws := b.TempDir()
	for i := range 2000 {
		d := filepath.Join(ws, "d"+strconv.Itoa(i/50), "e"+strconv.Itoa(i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 10 {
			if err := os.WriteFile(filepath.Join(d, "f"+strconv.Itoa(j)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	tr := &metaTree{dirs: map[string]dirStamp{}, meta: map[string]os.FileInfo{}}
	tr.list(ws, nil)
	b.ResetTimer()
	for b.Loop() {
		if got := tr.newMetadata(ws); got != nil {
			b.Fatal(got)
		}
	}
}

// TestMetaTreeBareWorkspace: a workspace that is a bare repository when
// first walked is known: a later change in it is not taken for a command
// making it one.
func TestMetaTreeBareWorkspace(t *testing.T) {
	ws := ostest.OutsideTemp(t)
	for _, d := range []string{"objects", "refs"} {
		if err := os.Mkdir(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &metaTree{dirs: map[string]dirStamp{}, meta: map[string]os.FileInfo{}}
	tr.list(ws, nil)
	if err := os.WriteFile(filepath.Join(ws, "description"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := tr.newMetadata(ws); got != nil {
		t.Errorf("a change in a workspace that was a bare repository: newMetadata = %q; want none", got)
	}
}

// TestMetaTreeBounds: the first walk stops at maxTreeEntries, but a later
// look lists all that changed: a command that makes more entries than the
// bound before its metadata does not hide it. Past maxTreeDirs, a new
// directory is searched but not kept.
func TestMetaTreeBounds(t *testing.T) {
	entries, dirs := maxTreeEntries, maxTreeDirs
	maxTreeEntries, maxTreeDirs = 5, 4
	defer func() { maxTreeEntries, maxTreeDirs = entries, dirs }()
	ws := ostest.OutsideTemp(t)
	write := func(rel string) {
		t.Helper()
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3000 {
		write("d" + strconv.Itoa(i%10) + "/f" + strconv.Itoa(i))
	}
	tr := &metaTree{dirs: map[string]dirStamp{}, meta: map[string]os.FileInfo{}}
	tr.list(ws, nil)
	if tr.entries >= 1000 {
		t.Errorf("the first walk listed %d entries; want it stopped after the chunk that passed %d", tr.entries, maxTreeEntries)
	}
	for i := range 40 {
		write("a/many/f" + strconv.Itoa(i))
	}
	if err := os.MkdirAll(filepath.Join(ws, "a/many/z/.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "b/c/d/.hg"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := tr.newMetadata(ws)
	for i := range got {
		got[i], _ = filepath.Rel(ws, got[i])
	}
	slices.Sort(got)
	if want := []string{"a/many/z/.git", "b/c/d/.hg"}; !slices.Equal(got, want) {
		t.Errorf("after 40 entries more than the bound: newMetadata = %q; want %q", got, want)
	}
	if len(tr.dirs) > maxTreeDirs {
		t.Errorf("%d directories kept; want at most %d", len(tr.dirs), maxTreeDirs)
	}
}

// TestMetaTreeHardLink: a hard link to known metadata (a worktree's or
// submodule's gitfile) made elsewhere is new metadata, not the known one
// moved: the known name still holds it.
func TestMetaTreeHardLink(t *testing.T) {
	ws := ostest.OutsideTemp(t)
	for _, d := range []string{"wt", "other/deep"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "wt", ".git"), []byte("gitdir: ../.git/worktrees/wt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &metaTree{dirs: map[string]dirStamp{}, meta: map[string]os.FileInfo{}}
	tr.list(ws, nil)
	if err := os.Link(filepath.Join(ws, "wt", ".git"), filepath.Join(ws, "other", "deep", ".git")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	if got, want := tr.newMetadata(ws), []string{filepath.Join(ws, "other", "deep", ".git")}; !slices.Equal(got, want) {
		t.Errorf("a hard link to a known gitfile: newMetadata = %q; want %q", got, want)
	}
	// Both names stay known: the link moved away is a move, not new.
	if err := os.Rename(filepath.Join(ws, "other", "deep", ".git"), filepath.Join(ws, "other", ".git")); err != nil {
		t.Fatal(err)
	}
	if got := tr.newMetadata(ws); got != nil {
		t.Errorf("a known link moved: newMetadata = %q; want none", got)
	}
}

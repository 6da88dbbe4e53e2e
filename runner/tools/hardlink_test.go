//go:build linux || darwin

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// write_file and edit_file never change a file that another hard link
// names: a workspace file hard-linked to a file outside (as pnpm links its
// store into node_modules) gets the new content under its own name, the
// outside file keeps the old one, the mode is kept and no temporary file is
// left. A file with one link is written in place (same inode).
func TestWriteThroughHardLink(t *testing.T) {
	for _, tc := range []struct {
		tool string
		args map[string]string
	}{
		{"write_file", map[string]string{"path": "linked.txt", "content": "new content\n"}},
		{"edit_file", map[string]string{"path": "linked.txt", "old": "old", "new": "new"}},
		{"write_file", map[string]string{"path": "sub/../linked.txt", "content": "new content\n"}},
		{"edit_file", map[string]string{"path": "alias/linked.txt", "old": "old", "new": "new"}},
	} {
		t.Run(tc.tool+" "+tc.args["path"], func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			ws, outside := filepath.Join(root, "work"), filepath.Join(root, "store", "pkg.txt")
			for _, d := range []string{filepath.Join(ws, "sub"), filepath.Dir(outside)} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(".", filepath.Join(ws, "alias")); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(outside, []byte("old content\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			// The umask would narrow a new file's mode: 0666 must survive.
			if err := os.Chmod(outside, 0o666); err != nil {
				t.Fatal(err)
			}
			linked := filepath.Join(ws, "linked.txt")
			if err := os.Link(outside, linked); err != nil {
				t.Skip("no hard links here:", err)
			}
			tl, _ := Builtin(Options{Cwd: ws}).Get(tc.tool)
			args, _ := json.Marshal(tc.args)
			if res := tl.Run(context.Background(), args); res.IsError {
				t.Fatalf("%s = %+v", tc.tool, res)
			}
			if b, _ := os.ReadFile(outside); string(b) != "old content\n" {
				t.Errorf("the file outside is %q; want it untouched", b)
			}
			if b, _ := os.ReadFile(linked); string(b) != "new content\n" {
				t.Errorf("the workspace file is %q", b)
			}
			fi, err := os.Stat(linked)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o666 {
				t.Errorf("mode %v; want 0666 kept", fi.Mode().Perm())
			}
			if n := fi.Sys().(*syscall.Stat_t).Nlink; n != 1 {
				t.Errorf("the workspace file has %d links; want 1", n)
			}
			entries, _ := os.ReadDir(ws)
			if len(entries) != 3 {
				t.Errorf("workspace holds %d entries; want alias, linked.txt, sub (no temporary file)", len(entries))
			}
		})
	}
}

// A file with a single link is written in place: its inode stays.
func TestWriteSingleLinkInPlace(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, "f.txt")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(p)
	if bad := writeFileAt(p, []byte("new\n"), false); bad != "" {
		t.Fatal(bad)
	}
	after, _ := os.Stat(p)
	if !os.SameFile(before, after) {
		t.Error("a single-link file was replaced, not written in place")
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Errorf("content %q", b)
	}
}

// A replacement that cannot be renamed into place (here the name is a
// non-empty directory) fails and leaves no temporary file.
func TestReplaceFileFailureLeavesNothing(t *testing.T) {
	ws := t.TempDir()
	d := filepath.Join(ws, "d")
	if err := os.MkdirAll(filepath.Join(d, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := replaceFile(d, strings.NewReader("new"), 0o644); err == nil {
		t.Fatal("replaceFile over a non-empty directory succeeded")
	}
	if entries, _ := os.ReadDir(ws); len(entries) != 1 {
		t.Errorf("%d entries left; want only d", len(entries))
	}
}

// inPlaceEditor is a ClientFS that writes as an editor may: in place,
// through whatever inode the path names (os.WriteFile truncates it).
type inPlaceEditor struct{ writes int }

func (e *inPlaceEditor) ReadTextFile(_ context.Context, p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}

func (e *inPlaceEditor) WriteTextFile(_ context.Context, p, content string) (bool, error) {
	e.writes++
	return true, os.WriteFile(p, []byte(content), 0o644)
}

// TestEditorWriteThroughHardLink: with an editor's file system (ACP), the
// editor writes; a workspace file hard-linked outside first gets an inode
// of its own with its old content and mode, so an editor writing in place
// leaves the file outside as it was. A file with one link keeps its inode.
func TestEditorWriteThroughHardLink(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, store := filepath.Join(root, "work"), filepath.Join(root, "store")
	for _, d := range []string{ws, store} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"w.txt", "e.txt"} {
		if err := os.WriteFile(filepath.Join(store, name), []byte("old content\n"), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(store, name), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(store, name), filepath.Join(ws, name)); err != nil {
			t.Skip("no hard links here:", err)
		}
	}
	single := filepath.Join(ws, "single.txt")
	if err := os.WriteFile(single, []byte("old content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ino := func(p string) uint64 {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	singleIno := ino(single)
	editor := &inPlaceEditor{}
	ctx := WithClientFS(context.Background(), editor)
	b := Builtin(Options{Cwd: ws})
	for _, call := range []struct{ tool, args string }{
		{"write_file", `{"path":"w.txt","content":"new content\n"}`},
		{"edit_file", `{"path":"e.txt","old":"old","new":"new"}`},
		{"edit_file", `{"path":"single.txt","old":"old","new":"new"}`},
	} {
		tl, _ := b.Get(call.tool)
		if res := tl.Run(ctx, json.RawMessage(call.args)); res.IsError {
			t.Fatalf("%s %s = %+v", call.tool, call.args, res)
		}
	}
	if editor.writes != 3 {
		t.Errorf("the editor wrote %d times; want 3", editor.writes)
	}
	for _, name := range []string{"w.txt", "e.txt"} {
		if got, _ := os.ReadFile(filepath.Join(store, name)); string(got) != "old content\n" {
			t.Errorf("store/%s = %q; want it untouched", name, got)
		}
		if got, _ := os.ReadFile(filepath.Join(ws, name)); string(got) != "new content\n" {
			t.Errorf("work/%s = %q; want the new content", name, got)
		}
		if fi, err := os.Stat(filepath.Join(ws, name)); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("work/%s mode %v (%v); want 0640 kept", name, fi.Mode().Perm(), err)
		}
	}
	if ino(single) != singleIno {
		t.Error("a file with one link got a new inode")
	}
	if entries, _ := os.ReadDir(ws); len(entries) != 3 {
		t.Errorf("workspace entries %v; want no temporary file left", entries)
	}
}

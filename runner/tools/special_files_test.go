//go:build linux || darwin

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// Security review: list_dir opens its path with os.Open before knowing it is
// a directory. On a FIFO in a hostile checkout (or one the model made with
// shell) open(2) blocks until a writer appears; ctx cannot interrupt it, so
// the tool, the run and turn.cancel hang. read_file and grep check the type
// first (openRegular, WalkDir's type); list_dir does not. The test proves
// the open by finding a reader on the FIFO (a nonblocking O_WRONLY open
// succeeds only then); a fixed list_dir refuses without opening.
func TestListDirFIFOBlocks(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	set := Builtin(Options{Cwd: dir})
	tl, ok := set.Get("list_dir")
	if !ok {
		t.Fatal("no list_dir")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // an already cancelled run must not block either
	done := make(chan Result, 1)
	go func() { done <- tl.Run(ctx, json.RawMessage(`{"path":"pipe"}`)) }()
	for {
		select {
		case <-done:
			return
		default:
		}
		f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			f.Close() // unblocks list_dir
			<-done
			t.Fatal("list_dir opened a FIFO for reading (blocked until a writer appeared)")
		}
	}
}

// The same class in the other file tools: none may open a FIFO in a way
// that blocks (a reader waits for a writer, a writer for a reader), and
// none reads or writes one. runPoked pokes the FIFO from both ends while
// the tool runs: a writer poke succeeds only while the tool holds it open
// for reading (the bug), and a reader poke unblocks a tool stuck opening
// it for writing, so a regression fails rather than hangs.
func TestSpecialFilesNotOpened(t *testing.T) {
	tests := []struct {
		tool, args, want string
	}{
		{"read_file", `{"path":"pipe"}`, "read_file: not a regular file"},
		{"write_file", `{"path":"pipe","content":"x"}`, "write_file: not a regular file"},
		{"edit_file", `{"path":"pipe","old":"a","new":"b"}`, "edit_file: not a regular file"},
		{"grep", `{"pattern":"x","path":"pipe"}`, "no matches"},
		{"grep", `{"pattern":"x","path":"."}`, "no matches"},
		{"list_dir", `{"path":"pipe"}`, "list_dir: not a directory"},
		{"read_file", `{"path":"/dev/null"}`, "read_file: not a regular file"},
		{"write_file", `{"path":"dev","content":"x"}`, "write_file: not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "pipe")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			if err := os.Symlink("/dev/null", filepath.Join(dir, "dev")); err != nil {
				t.Fatal(err)
			}
			tl, _ := Builtin(Options{Cwd: dir, AllowOutsideCwd: true, ReadRoots: []string{"/dev"}}).Get(tc.tool)
			res, openedForRead := runPoked(tl, tc.args, fifo)
			if openedForRead {
				t.Errorf("%s opened the FIFO for reading", tc.tool)
			}
			if res.Text != tc.want {
				t.Errorf("%s(%s) = %q; want %q", tc.tool, tc.args, res.Text, tc.want)
			}
		})
	}
}

func runPoked(tl Tool, args, fifo string) (res Result, openedForRead bool) {
	done := make(chan Result, 1)
	go func() { done <- tl.Run(context.Background(), json.RawMessage(args)) }()
	for {
		select {
		case res := <-done:
			return res, openedForRead
		default:
		}
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			openedForRead = true
			f.Close()
		}
		if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		runtime.Gosched()
	}
}

// A symlink swapped into a checked path between the check and the open is
// not followed: the open goes component by component with O_NOFOLLOW.
func TestSymlinkSwapNotFollowed(t *testing.T) {
	tests := []struct {
		name string
		swap string // the component replaced by a link to outside
		run  func(real string) string
	}{
		{"read through swapped dir", "work/sub", func(real string) string {
			f, bad := openRegular(real)
			if f != nil {
				f.Close()
			}
			return bad
		}},
		{"read through swapped file", "work/sub/f.txt", func(real string) string {
			f, bad := openRegular(real)
			if f != nil {
				f.Close()
			}
			return bad
		}},
		{"write through swapped dir", "work/sub", func(real string) string { return writeFileAt(real, []byte("new"), true) }},
		{"write through swapped file", "work/sub/f.txt", func(real string) string { return writeFileAt(real, []byte("new"), true) }},
		{"edit through swapped file", "work/sub/f.txt", func(real string) string { return writeFileAt(real, []byte("new"), false) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{"work/sub/f.txt", "outside/f.txt"} {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, p), []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			real, err := realPath(filepath.Join(root, "work/sub/f.txt"))
			if err != nil {
				t.Fatal(err)
			}
			// The swap, after the check resolved the path.
			swapped := filepath.Join(root, tc.swap)
			if err := os.RemoveAll(swapped); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(root, "outside", strings.TrimPrefix(tc.swap, "work/sub"))
			if err := os.Symlink(target, swapped); err != nil {
				t.Fatal(err)
			}
			if bad := tc.run(real); bad == "" {
				t.Errorf("%s succeeded through a swapped symlink", tc.name)
			}
			if b, _ := os.ReadFile(filepath.Join(root, "outside/f.txt")); string(b) != "old" {
				t.Errorf("outside/f.txt = %q; want it untouched", b)
			}
		})
	}
}

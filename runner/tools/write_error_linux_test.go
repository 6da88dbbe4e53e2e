//go:build linux

package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A write_file whose write fails (here past RLIMIT_FSIZE, which makes the
// write return EFBIG: Go ignores SIGXFSZ) is an error, not "written": the
// close that follows does not hide it, nor, for a target with another hard
// link, the rename of the new file over it. The limit is set in a child copy
// of this test binary so that no other test runs under it.
func TestWriteFileWriteErrorIsReported(t *testing.T) {
	if os.Getenv("MAGI_TOOLS_FSIZE_CHILD") == "1" {
		// Only the soft limit, restored after the call: a coverage run
		// writes its data at exit, which must not fail (make mutate).
		var old syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatalf("getrlimit: %v", err)
		}
		lim := syscall.Rlimit{Cur: 1024, Max: old.Max}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Fatalf("setrlimit: %v", err)
		}
		defer func() {
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
				t.Errorf("restoring the file size limit: %v", err)
			}
		}()
		dir := os.Getenv("MAGI_TOOLS_FSIZE_DIR")
		tool, _ := Builtin(Options{Cwd: dir, MaxOutput: 1000}).Get("write_file")
		res := tool.Run(context.Background(), []byte(`{"path":"big.txt","content":"`+strings.Repeat("x", 4096)+`"}`))
		if !res.IsError {
			t.Fatalf("write_file of 4096 bytes under a 1024-byte file size limit = %q; want an error", res.Text)
		}
		// A target with another hard link gets a new file renamed over
		// it: a failed write must leave the target as it was.
		linked := filepath.Join(dir, "linked.txt")
		if err := os.WriteFile(linked, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(linked, filepath.Join(dir, "other.txt")); err != nil {
			t.Fatal(err)
		}
		res = tool.Run(context.Background(), []byte(`{"path":"linked.txt","content":"`+strings.Repeat("x", 4096)+`"}`))
		if data, _ := os.ReadFile(linked); !res.IsError || string(data) != "old" {
			t.Fatalf("write_file of 4096 bytes to a hard-linked file under the limit = %q, the file holds %d bytes; want an error and the old content", res.Text, len(data))
		}
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteFileWriteErrorIsReported$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MAGI_TOOLS_FSIZE_CHILD=1", "MAGI_TOOLS_FSIZE_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("child under RLIMIT_FSIZE: %v\n%s", err, out)
	}
	if fi, err := os.Stat(filepath.Join(dir, "big.txt")); err == nil && fi.Size() > 1024 {
		t.Errorf("big.txt is %d bytes; the limit did not apply", fi.Size())
	}
}

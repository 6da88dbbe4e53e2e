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
// close that follows does not hide it. The limit is set in a child copy
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

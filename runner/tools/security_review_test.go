package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
func TestSecurityReviewListDirFIFOBlocks(t *testing.T) {
	t.Skip("BUG: list_dir on a FIFO blocks in open(2) and ignores ctx (runner/tools/files.go list_dir os.Open)")
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

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/magi-code/magi-code/stages/worker"
	"github.com/magi-code/magi-code/stages/writer"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		cause cause
		code  int
	}{
		{"shutdown drained", causeShutdown, causeShutdown, 0},
		{"eof drained", causeEOF, causeEOF, 0},
		{"drain deadline", causeDrainDeadline, causeDrainDeadline, 1},
		{"overflow", asCause(writer.ErrOverflow), causeOverflow, 1},
		{"output deadline", asCause(writer.ErrOutputDeadline), causeOutputDeadline, 1},
		{"broken output", asCause(fmt.Errorf("%w: %w", writer.ErrOutputBroken, syscall.EPIPE)), causeOutputBroken, 1},
		{"run.finished lost", asCause(worker.ErrRunFinishedLost), causeEventLost, 1},
		{"worker panic", asCause(fmt.Errorf("%w: boom", worker.ErrWorkerPanic)), causePanic, 1},
		{"unforeseen error", asCause(errors.New("x")), causePanic, 1},
		{"no cause at all", context.Canceled, causePanic, 1},
		{"a cause is kept", asCause(causeDrainDeadline), causeDrainDeadline, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := causeOf(tt.err); got != tt.cause {
				t.Fatalf("causeOf(%v) = %q; want %q", tt.err, got, tt.cause)
			}
			if got := exitCode(tt.err); got != tt.code {
				t.Fatalf("exitCode(%v) = %d; want %d", tt.err, got, tt.code)
			}
		})
	}
}

// TestFirstCauseWins: the pipeline's cause is the first one set; a drain
// that completes after the writer failed still exits 1.
func TestFirstCauseWins(t *testing.T) {
	ctx, stop := context.WithCancelCause(context.Background())
	stop(asCause(writer.ErrOutputDeadline))
	stop(causeEOF)
	if got := exitCode(context.Cause(ctx)); got != exitFailure {
		t.Fatalf("exit code = %d; want %d", got, exitFailure)
	}
	if got := causeOf(context.Cause(ctx)); got != causeOutputDeadline {
		t.Fatalf("cause = %q; want %q", got, causeOutputDeadline)
	}
}

func TestLogPathLatestOrInstance(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"serve-old.log", "serve-new.log.1", "serve-new.log"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(time.Duration(i-3) * time.Minute)
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := logPath(dir, ""); err != nil || filepath.Base(got) != "serve-new.log" {
		t.Fatalf("logPath(latest) = %q, %v; want serve-new.log", got, err)
	}
	if got, err := logPath(dir, "old"); err != nil || filepath.Base(got) != "serve-old.log" {
		t.Fatalf("logPath(old) = %q, %v; want serve-old.log", got, err)
	}
	if _, err := logPath(dir, "missing"); err == nil {
		t.Fatal("logPath(missing) found a log")
	}
	if _, err := logPath(filepath.Join(dir, "none"), ""); err == nil {
		t.Fatal("logPath of a missing directory found a log")
	}
}

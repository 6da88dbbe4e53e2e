// Package codemode holds whole-process tests of Code Mode, the tool
// protections, auto-compaction and subagents: each test drives real
// `magi-code serve --stdio` children through real pipes with the Go client
// (issue 8 "What must hold", issue 7 items 3 and 4).
package codemode

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// TestMain builds the binary once into a directory it removes afterwards,
// unless MAGI_CODE_BIN names one already.
func TestMain(m *testing.M) {
	var built string
	if os.Getenv("MAGI_CODE_BIN") == "" {
		dir, err := os.MkdirTemp("", "e2e-codemode-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		bin := filepath.Join(dir, "magi-code")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/magi-code")
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building magi-code: %v\n%s", err, out)
			os.RemoveAll(dir)
			os.Exit(1)
		}
		os.Setenv("MAGI_CODE_BIN", bin)
		built = dir
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if built != "" {
			os.RemoveAll(built)
		}
		os.Exit(code)
	}))
}

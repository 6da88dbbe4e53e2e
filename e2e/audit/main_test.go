// Package audit holds whole-process tests written by the spec audit: each
// covers a sentence of spec/local-agent-protocol.md (or a DESIGN.md
// contract) observable through the pipes, exit codes, stderr or files on
// disk that e2e/transport and e2e/session do not already cover. A test that
// fails here names a spec sentence the binary does not hold.
package audit

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
		dir, err := os.MkdirTemp("", "e2e-audit-bin-")
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

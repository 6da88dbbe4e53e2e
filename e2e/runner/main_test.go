// Package runner holds whole-process tests of the full agent runner behind
// the protocol (issue 7, "What must hold"): real `magi-code serve --stdio`
// children driven through real pipes by the Go client, with MCP servers
// (a Go one built from testdata/mcpserver, and @modelcontextprotocol/
// server-everything when node has it), hooks, the fixture provider and the
// OpenAI and Anthropic providers against local httptest servers that stream
// real SSE.
package runner

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// mcpServerBin is the MCP stdio server built from testdata/mcpserver.
var mcpServerBin string

// TestMain builds the MCP test server, and the binary unless MAGI_CODE_BIN
// names one already, into a directory it removes afterwards.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "e2e-runner-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := func(out, pkg string) {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = filepath.Join("..", "..")
		if b, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, b)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	if os.Getenv("MAGI_CODE_BIN") == "" {
		bin := filepath.Join(dir, "magi-code")
		build(bin, "./cmd/magi-code")
		os.Setenv("MAGI_CODE_BIN", bin)
	}
	mcpServerBin = filepath.Join(dir, "mcpserver")
	build(mcpServerBin, "./e2e/runner/testdata/mcpserver")
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

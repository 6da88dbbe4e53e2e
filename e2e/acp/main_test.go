// Package acp holds whole-process tests of `magi-code acp`: each drives a
// real child through real pipes with a small JSON-RPC line client of its
// own, the fixture provider scripting the model. Every frame the child
// writes is checked: one JSON-RPC 2.0 object per line, at most 65,536
// bytes with its LF.
package acp

import (
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// mcpServerBin is the MCP stdio server of e2e/runner, built once.
var mcpServerBin string

func TestMain(m *testing.M) {
	clienttest.Main(m, clienttest.Tool{Pkg: "./e2e/runner/testdata/mcpserver", Path: &mcpServerBin})
}

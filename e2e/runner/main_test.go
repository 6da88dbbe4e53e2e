// Package runner holds whole-process tests of the full agent runner behind
// the protocol: real `magi-code serve --stdio`
// children driven through real pipes by the Go client, with MCP servers
// (a Go one built from testdata/mcpserver, and @modelcontextprotocol/
// server-everything when node has it), hooks, the fixture provider and the
// OpenAI and Anthropic providers against local httptest servers that stream
// real SSE.
package runner

import (
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// mcpServerBin is the MCP stdio server built from testdata/mcpserver.
var mcpServerBin string

// TestMain builds the MCP test server, and the binary unless MAGI_CODE_BIN
// names one already, checks for leaked goroutines and removes what it built.
func TestMain(m *testing.M) {
	clienttest.Main(m, clienttest.Tool{Pkg: "./e2e/runner/testdata/mcpserver", Path: &mcpServerBin})
}

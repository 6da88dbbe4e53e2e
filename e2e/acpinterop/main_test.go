//go:build linux

package acpinterop

import (
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// demoMCP is the small MCP stdio server the client-MCP scenario hands to
// session/new.
var demoMCP string

// TestMain builds the binary (unless MAGI_CODE_BIN names one) and the demo
// MCP server once.
func TestMain(m *testing.M) {
	clienttest.Main(m, clienttest.Tool{Pkg: "./cmd/demo-mcp", Path: &demoMCP})
}

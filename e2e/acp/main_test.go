//go:build unix

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

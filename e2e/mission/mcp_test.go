//go:build unix

package mission

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// /mcp lists the MCP servers: the global one running with its tools, the
// project one waiting for its approval. At 80 and at 30 columns.
func TestMCPCommandListsServers(t *testing.T) {
	for _, size := range []struct{ cols, rows int }{{80, 24}, {30, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size.cols, size.rows), func(t *testing.T) {
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{
				Extra: "[mcp_servers.tools]\ncommand = " + clienttest.Quote(mcpServerBin) + "\n",
			})
			ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"), "[mcp_servers.projsrv]\ncommand = \"/nonexistent/server\"\n")
			v := startVT(t, ws, size.cols, size.rows)
			v.waitScreen("fixture-model")
			v.typeText("/mcp\r")
			v.waitWords("MCP servers:")
			v.waitWords("projsrv not approved: not started; magi-code mcp approve projsrv")
			v.waitWords("tools running,")
		})
	}
}

//go:build unix

package mission

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
			// /mcp prints the states the backend last reported: the server
			// may still be starting when it is typed first, so it is typed
			// again after each answer until that says running.
			deadline := time.Now().Add(clienttest.HangGuard)
			for n := 1; !strings.Contains(v.flat(), "tools running,"); n++ {
				if time.Now().After(deadline) {
					t.Fatalf("/mcp never said the server runs:\n%s", v.dump())
				}
				v.typeText("/mcp\r")
				clienttest.WaitFor(t, fmt.Sprintf("answer %d to /mcp", n), func() bool { return strings.Count(v.flat(), "MCP servers:") >= n })
				time.Sleep(50 * time.Millisecond) // between retries; not a timing assertion
			}
			v.waitWords("projsrv not approved: not started; magi-code mcp approve projsrv")
		})
	}
}

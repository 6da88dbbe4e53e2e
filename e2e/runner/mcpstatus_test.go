package runner

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestMCPStatusCapability: through serve --stdio, a client that requires
// mcp.status reads the MCP servers in status (and initialize's status):
// the global one running with its tool count, a project one waiting for
// its approval; after session.create too. A client that does not require
// it sees no mcp_servers (version 1).
func TestMCPStatusCapability(t *testing.T) {
	t.Parallel()
	for _, required := range []bool{true, false} {
		ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings+mcpServer("tools", nil))
		ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"), "[mcp_servers.projsrv]\ncommand = \"/nonexistent/server\"\n")
		ch := &child{ws.Spawn(t, client.Options{Env: ws.Env()})}
		caps := slices.Clone(clienttest.AllCapabilities)
		if required {
			caps = append(caps, protocol.CapabilityMCPStatus)
		}
		var init struct {
			Status json.RawMessage `json:"status"`
		}
		ch.Result("initialize", map[string]any{"required_capabilities": caps}, &init)
		ch.Create()
		var st json.RawMessage
		ch.Result("status", map[string]any{}, &st)
		for _, raw := range []json.RawMessage{init.Status, st} {
			var s struct {
				MCP *[]struct {
					Name, State string
					Tools       int
				} `json:"mcp_servers"`
			}
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatal(err)
			}
			if !required {
				if s.MCP != nil || strings.Contains(string(raw), "mcp_servers") {
					t.Fatalf("mcp_servers without the capability: %s", raw)
				}
				continue
			}
			if s.MCP == nil || len(*s.MCP) != 2 {
				t.Fatalf("status %s", raw)
			}
			p, g := (*s.MCP)[0], (*s.MCP)[1]
			if p.Name != "projsrv" || p.State != "not_approved" || p.Tools != 0 || g.Name != "tools" || g.State != "running" || g.Tools == 0 {
				t.Fatalf("mcp_servers %s", raw)
			}
		}
		ch.Shutdown()
	}
}

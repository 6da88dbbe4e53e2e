package runner

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// authMCPServer is an mcp-go streamable HTTP server whose echo tool answers
// only requests that carry both credentials; it counts refused requests.
func authMCPServer(t *testing.T, bearer, key string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	s := server.NewMCPServer("auth-test", "1.0.0")
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text"), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			v, _ := req.GetArguments()["text"].(string)
			return mcp.NewToolResultText("echo: " + v), nil
		})
	h := server.NewStreamableHTTPServer(s)
	var refused atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+bearer || r.Header.Get("X-Api-Key") != key {
			refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, &refused
}

// TestMCPHTTPHeaders: an HTTP MCP server that requires credentials in
// headers works when the global settings name the variables that hold
// them ([mcp_servers.NAME] bearer_token_env, env_headers): the model calls
// its tool, and no frame carries a credential. Without the variable set the
// server cannot authenticate and initialization fails with mcp_unavailable;
// a project file may not name the variables (configuration_invalid).
func TestMCPHTTPHeaders(t *testing.T) {
	t.Parallel()
	const bearer, key = "e2e-mcp-bearer-7Hq2", "e2e-mcp-key-9Zx4"
	ts, refused := authMCPServer(t, bearer, key)
	table := "\n[mcp_servers.web]\nurl = " + clienttest.Quote(ts.URL) +
		"\nbearer_token_env = \"E2E_MCP_TOKEN\"\nenv_headers = {\"X-Api-Key\" = \"E2E_MCP_KEY\"}\n"

	t.Run("variables set", func(t *testing.T) {
		dir := t.TempDir()
		settings := script(t, dir, []step{toolCall("mcp__web__echo", map[string]any{"text": "hi"})}, []step{text("done")})
		ws := clienttest.NewWorkspace(t, settings+table)
		env := append(ws.Env(), "E2E_MCP_TOKEN="+bearer, "E2E_MCP_KEY="+key)
		ch := startChild(t, ws, client.Options{Env: env, RecordFrames: true})
		sid := ch.Create().SessionID
		r := ch.Turn(sid, "call the server")
		r.WantOutcome(t, "completed", "")
		var states []string
		for _, a := range r.Activities {
			states = append(states, a.State)
		}
		if len(states) != 2 || states[1] != "completed" {
			t.Fatalf("activity states %v; want the MCP call to complete", states)
		}
		ch.Shutdown()
		if n := refused.Load(); n != 0 {
			t.Fatalf("%d requests reached the server without the credentials", n)
		}
		for _, f := range ch.C.Frames() {
			if bytes.Contains(f.Raw, []byte(bearer)) || bytes.Contains(f.Raw, []byte(key)) {
				t.Fatalf("frame %d carries a credential", f.Seq)
			}
		}
	})
	t.Run("variable unset", func(t *testing.T) {
		ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings+table)
		ch := &child{ws.Spawn(t, client.Options{Env: append(ws.Env(), "E2E_MCP_KEY="+key)})}
		ch.WantError("initialize", map[string]any{"required_capabilities": []string{}}, protocol.CodeMCPUnavailable)
		ch.Shutdown()
	})
	t.Run("project file", func(t *testing.T) {
		ws := clienttest.NewWorkspace(t, clienttest.FixtureSettings+"\n[mcp_servers.web]\nurl = "+clienttest.Quote(ts.URL)+"\n")
		ws.WriteFile(t, filepath.Join(ws.Cwd, ".magi-code", "settings.toml"), "[mcp_servers.web]\nbearer_token_env = \"E2E_MCP_TOKEN\"\n")
		ch := &child{ws.Spawn(t, client.Options{Env: append(ws.Env(), "E2E_MCP_TOKEN="+bearer)})}
		ch.WantError("initialize", map[string]any{"required_capabilities": []string{}}, protocol.CodeConfigurationInvalid)
		ch.Shutdown()
	})
}

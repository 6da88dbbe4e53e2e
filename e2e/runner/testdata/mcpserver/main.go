// Command mcpserver is the MCP stdio server of the e2e/runner tests, built
// by their TestMain. Its tools:
//
//   - lookup (read-only): answers "value of KEY: MCP-RESULT-BODY-<key>";
//   - store (not read-only): records "store VALUE" in $MCP_CALLS_FILE;
//   - hang (not read-only): records "hang" and blocks until the call is
//     cancelled (or the server ends), then records "hang cancelled";
//   - big (read-only): answers MCP_BIG_BYTES bytes of 'b' (default 1 MiB);
//   - env (read-only): answers its whole environment.
//
// Every call is recorded in $MCP_CALLS_FILE (one line each, appended), and
// at startup the server writes its environment to $MCP_ENV_FILE, so tests
// can check what reached it. Both variables come from the server's own
// env table in the settings: nothing else reaches its environment.
package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// mu serializes appends to the calls file.
var mu sync.Mutex

func record(line string) {
	path := os.Getenv("MCP_CALLS_FILE")
	if path == "" {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(line + "\n")
	_ = f.Sync()
}

func main() {
	if path := os.Getenv("MCP_ENV_FILE"); path != "" {
		_ = os.WriteFile(path, []byte(strings.Join(os.Environ(), "\n")+"\n"), 0o600)
	}
	s := server.NewMCPServer("e2e-runner", "1.0.0", server.WithToolCapabilities(false))
	arg := func(req mcp.CallToolRequest, name string) string {
		v, _ := req.GetArguments()[name].(string)
		return v
	}
	s.AddTool(mcp.NewTool("lookup", mcp.WithDescription("looks a key up"),
		mcp.WithString("key", mcp.Required()), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record("lookup " + arg(req, "key"))
			return mcp.NewToolResultText("value of " + arg(req, "key") + ": MCP-RESULT-BODY-" + arg(req, "key")), nil
		})
	s.AddTool(mcp.NewTool("store", mcp.WithDescription("stores a value"),
		mcp.WithString("value", mcp.Required()), mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record("store " + arg(req, "value"))
			return mcp.NewToolResultText("stored"), nil
		})
	s.AddTool(mcp.NewTool("hang", mcp.WithDescription("waits until cancelled"),
		mcp.WithReadOnlyHintAnnotation(false)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record("hang")
			<-ctx.Done()
			record("hang cancelled")
			return nil, ctx.Err()
		})
	s.AddTool(mcp.NewTool("big", mcp.WithDescription("answers a large text"),
		mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record("big")
			n := 1 << 20
			if v, err := strconv.Atoi(os.Getenv("MCP_BIG_BYTES")); err == nil {
				n = v
			}
			return mcp.NewToolResultText(strings.Repeat("b", n)), nil
		})
	s.AddTool(mcp.NewTool("env", mcp.WithDescription("answers its environment"),
		mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record("env")
			return mcp.NewToolResultText(strings.Join(os.Environ(), "\n")), nil
		})
	_ = server.ServeStdio(s)
}

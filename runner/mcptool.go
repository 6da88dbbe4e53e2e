package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/magi-code/magi-code/runner/mcp"
	"github.com/magi-code/magi-code/runner/tools"
)

// mcpResultBytes bounds an MCP tool result before it reaches the model.
const mcpResultBytes = tools.DefaultMaxOutput

// mcpTool offers one tool of a connected MCP server to the model as
// mcp__SERVER__TOOL, called with the turn's cancellation.
type mcpTool struct {
	m    *mcp.Manager
	tool mcp.Tool
}

func (t *mcpTool) Name() string        { return t.tool.FullName }
func (t *mcpTool) Description() string { return t.tool.Description }

func (t *mcpTool) Schema() json.RawMessage {
	if len(t.tool.InputSchema) == 0 {
		return json.RawMessage(`{"type":"object"}`)
	}
	return t.tool.InputSchema
}

// Mutating: a tool the server does not mark read-only requests approval
// under tools.approval = "ask".
func (t *mcpTool) Mutating() bool { return !t.tool.ReadOnly }

// Describe names the server and tool only: MCP arguments are arbitrary and
// may hold anything, so they are never quoted.
func (t *mcpTool) Describe(json.RawMessage) string {
	return fmt.Sprintf("MCP tool %s of server %s", t.tool.Name, t.tool.Server)
}

func (t *mcpTool) Run(ctx context.Context, args json.RawMessage) tools.Result {
	text, isError, err := t.m.Call(ctx, t.tool.FullName, args, mcpResultBytes)
	switch {
	case ctx.Err() != nil:
		return tools.Result{Text: "cancelled", IsError: true, Summary: t.tool.FullName + ": cancelled"}
	case errors.Is(err, mcp.ErrToolTimeout):
		// The server's tool_timeout_sec: the model may try otherwise.
		return tools.Result{Text: "the MCP tool timed out (the server's tool_timeout_sec)", IsError: true, Summary: t.tool.FullName + ": timed out"}
	case err != nil:
		return tools.Result{Text: "the MCP server failed to answer", IsError: true, Summary: t.tool.FullName + ": failed"}
	case isError:
		return tools.Result{Text: text, IsError: true, Summary: t.tool.FullName + ": returned an error"}
	}
	return tools.Result{Text: text, Summary: fmt.Sprintf("%s: %d bytes", t.tool.FullName, len(text))}
}

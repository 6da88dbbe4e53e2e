package mcp

// The test binary doubles as every MCP server the tests need: TestMain runs
// runTestServer when MAGI_MCP_TEST_SERVER names a mode, which each test
// passes through ServerDef.Env (the only way anything reaches a server's
// environment). No separate build step.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const modeEnv = "MAGI_MCP_TEST_SERVER"

// markerEnv names a file where a server writes "PID [CHILDPID]" once it runs.
const markerEnv = "MAGI_MCP_TEST_MARKER"

func runTestServer(mode string) {
	switch mode {
	case "sleep": // a grandchild that must die with its group
		time.Sleep(time.Hour)
	case "exit": // dies before the handshake
		fmt.Fprintln(os.Stderr, "fatal: boom")
		os.Exit(3)
	case "hang": // never answers, never reads stdin, has a child
		child := startSleeper()
		writeMarker(os.Getpid(), child)
		time.Sleep(time.Hour)
	case "longline": // first line longer than MaxMessageBytes
		writeMarker(os.Getpid(), 0)
		line := strings.Repeat("x", MaxMessageBytes+1) + "\n"
		os.Stdout.WriteString(line)
		time.Sleep(time.Hour)
	case "flood": // MiBs of stderr before and during serving
		os.Stderr.WriteString(strings.Repeat("e", 1<<20))
		serveGood(true)
	case "stubborn": // serves, then ignores stdin EOF and keeps a child
		writeMarker(os.Getpid(), startSleeper())
		serveGood(false)
		time.Sleep(time.Hour)
	default: // "good"
		writeMarker(os.Getpid(), 0)
		serveGood(false)
	}
}

func startSleeper() int {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), modeEnv+"=sleep")
	if err := cmd.Start(); err != nil {
		os.Exit(4)
	}
	return cmd.Process.Pid
}

func writeMarker(pid, child int) {
	if path := os.Getenv(markerEnv); path != "" {
		_ = os.WriteFile(path+".tmp", fmt.Appendf(nil, "%d %d", pid, child), 0o600)
		_ = os.Rename(path+".tmp", path)
	}
}

func serveGood(flood bool) {
	s := server.NewMCPServer("test", "1.0.0", server.WithToolCapabilities(false))
	text := func(req mcp.CallToolRequest) string {
		v, _ := req.GetArguments()["text"].(string)
		return v
	}
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("echoes text"),
		mcp.WithString("text", mcp.Required()), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if flood {
				os.Stderr.WriteString(strings.Repeat("f", 200<<10))
			}
			return mcp.NewToolResultText(text(req)), nil
		})
	s.AddTool(mcp.NewTool("write", mcp.WithDescription("pretends to write"),
		mcp.WithString("text"), mcp.WithReadOnlyHintAnnotation(false)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("refused: " + text(req)), nil
		})
	s.AddTool(mcp.NewTool("big", mcp.WithNumber("n", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n, _ := req.GetArguments()["n"].(float64)
			return mcp.NewToolResultText(strings.Repeat("é", int(n)/2)), nil
		})
	s.AddTool(mcp.NewTool("hang"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, "test/hanging", nil)
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(mcp.NewTool("die"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(5) // in the middle of a call
			return nil, nil
		})
	s.AddTool(mcp.NewTool("rpcerr"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("handler failed")
		})
	s.AddTool(mcp.NewTool("inspect", mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out, _ := json.Marshal(inspection{Env: os.Environ(), FDs: fdTargets()})
			return mcp.NewToolResultText(string(out)), nil
		})
	s.AddTool(mcp.NewTool("odd.name/with spaces"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("odd"), nil
		})
	_ = server.ServeStdio(s)
}

// inspection is what the inspect tool reports about the server process.
type inspection struct {
	Env []string
	FDs [3]string // readlink of /proc/self/fd/{0,1,2}; "" where unknown
}

func fdTargets() (out [3]string) {
	for i := range out {
		out[i], _ = os.Readlink(fmt.Sprintf("/proc/self/fd/%d", i))
	}
	return out
}

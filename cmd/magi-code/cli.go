package main

import (
	"fmt"
	"os"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/runner/config"
)

// cli runs the small terminal commands for people: schema, conformance,
// config show, mcp list, mcp approve NAME. They read settings like a normal run and never print
// secrets.
func cli(l launch) int {
	switch l.mode {
	case modeSchema:
		// The checked-in protocol/schema.json, embedded: nothing is built.
		if _, err := os.Stdout.WriteString(protocol.Schema); err != nil {
			return 1
		}
		return 0
	case modeConformance:
		return conformanceMain(l.server)
	case modeLogs:
		return logsMain(runner.ProcessEnv(), l.name, l.follow)
	}
	env := runner.ProcessEnv()
	switch l.mode {
	case modeConfigShow:
		d, err := config.Describe(env)
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: config show:", err)
			return 1
		}
		fmt.Print(d.Text())
		if dir, err := env.LogDir(); err == nil {
			fmt.Printf("log directory: %s\n", dir)
		}
	case modeMCPList:
		list, err := config.ListMCP(env)
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: mcp list:", err)
			return 1
		}
		fmt.Print(config.MCPText(list))
	case modeMCPApprove:
		if err := config.Approve(env, l.name); err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: mcp approve:", err)
			return 1
		}
		fmt.Printf("approved MCP server %s for this workspace\n", l.name)
	}
	return 0
}

package main

import (
	"fmt"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/magi-code/magi-code/history"
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
	case modeSessionsList:
		list, err := runner.ListSessions(env)
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: sessions list:", err)
			return 1
		}
		fmt.Print(sessionsText(list))
	case modeSessionsPrune:
		removed, days, err := runner.PruneSessions(env, time.Now())
		for _, s := range removed {
			fmt.Printf("removed %s\n", sessionLine(s))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: sessions prune:", err)
			return 1
		}
		if days == 0 {
			fmt.Println("session_retention_days = 0: pruning is disabled")
		} else {
			fmt.Printf("removed %d sessions idle for %d days or more\n", len(removed), days)
		}
	case modeMCPApprove:
		if err := config.Approve(env, l.name); err != nil {
			fmt.Fprintln(os.Stderr, "magi-code: mcp approve:", err)
			return 1
		}
		fmt.Printf("approved MCP server %s for this workspace\n", l.name)
	}
	return 0
}

// sessionsText is the sessions listing: a header line, then one line per
// session.
func sessionsText(list []history.SessionInfo) string {
	var b strings.Builder
	b.WriteString("ID  LAST ACTIVITY  SIZE  CWD\n")
	for _, s := range list {
		b.WriteString(sessionLine(s))
		b.WriteByte('\n')
	}
	return b.String()
}

// sessionLine is one session: ID, last activity (UTC, RFC 3339), size in
// bytes and the recorded cwd ("-" when none), with control characters of a
// crafted cwd made visible rather than sent to the terminal.
func sessionLine(s history.SessionInfo) string {
	cwd := s.Cwd
	if cwd == "" {
		cwd = "-"
	}
	cwd = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, cwd)
	return fmt.Sprintf("%s  %s  %d  %s", s.ID, s.LastActivity.UTC().Format(time.RFC3339), s.Size, cwd)
}

// Command demo-mcp is the tiny MCP stdio server of `make demo`'s second
// scene: a team notebook with one read-only tool, search_notes, that
// returns the note lines matching a query. The demo builds it into its
// temporary directory and configures it as [mcp_servers.notes]; it is
// not meant for anything else.
//
// It writes MCP frames on stdout and nothing on stderr.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// maxLimit bounds the lines one search returns.
const maxLimit = 200

func main() {
	s := server.NewMCPServer("demo-notes", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("search_notes",
		mcp.WithDescription("Searches the team notebook and returns the matching lines, one per line, each prefixed with its note."),
		mcp.WithString("query", mcp.Required(), mcp.Description("words to look for, case-insensitive; empty matches every line")),
		mcp.WithNumber("limit", mcp.Description(fmt.Sprintf("the most lines to return (default 20, at most %d)", maxLimit))),
		mcp.WithReadOnlyHintAnnotation(true)),
		searchNotes)
	// The default error logger writes to stderr; the demo wants none.
	if err := server.ServeStdio(s, server.WithErrorLogger(log.New(io.Discard, "", 0))); err != nil {
		os.Exit(1)
	}
}

func searchNotes(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	limit := min(max(req.GetInt("limit", 20), 1), maxLimit)
	lines := search(notebook(), req.GetString("query", ""), limit)
	if len(lines) == 0 {
		return mcp.NewToolResultText("no matching notes"), nil
	}
	return mcp.NewToolResultText(strings.Join(lines, "\n")), nil
}

// search returns up to limit lines of notes that contain every word of
// query, case-insensitively, as "NOTE: line".
func search(notes []note, query string, limit int) []string {
	words := strings.Fields(strings.ToLower(query))
	var out []string
	for _, n := range notes {
		for _, line := range strings.Split(n.text, "\n") {
			if line == "" || !containsAll(strings.ToLower(line), words) {
				continue
			}
			out = append(out, n.name+": "+line)
			if len(out) == limit {
				return out
			}
		}
	}
	return out
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

type note struct{ name, text string }

// notebook is the notes the server knows: a few hand-written ones and a
// generated standup log, long enough that reading all of it fills the
// demo's small context window.
func notebook() []note {
	notes := []note{
		{"release.md", "Release 0.4 is planned for Friday.\n" +
			"The release blocker is the flaky history.page test on macOS.\n" +
			"Ana owns the release notes; Bo tags the release after CI is green.\n"},
		{"ideas.md", "Try a smaller context window in the demo to show compaction.\n" +
			"An MCP server for the team notebook (this one).\n"},
		{"oncall.md", "On call this week: Bo. Next week: Ana.\n"},
	}
	topics := []string{
		"reviewed the framing fuzz findings; no new crashes",
		"the writer now batches pending frames into one write",
		"history paging passes the 8 MiB snapshot test",
		"release checklist: changelog, tag, announce",
		"approval expiry is tested at 59,999 and 60,000 ms",
		"MCP servers start in their own process group",
	}
	var standups strings.Builder
	day := time.Date(2026, time.September, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; day.Month() <= time.November; i, day = i+1, day.AddDate(0, 0, 1) {
		fmt.Fprintf(&standups, "%s standup: %s.\n", day.Format(time.DateOnly), topics[i%len(topics)])
	}
	return append(notes, note{"standup.md", standups.String()})
}

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func callSearch(t *testing.T, args map[string]any) []string {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = "search_notes"
	req.Params.Arguments = args
	res, err := searchNotes(context.Background(), req)
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("search_notes(%v) = %+v, %v; want one text result", args, res, err)
	}
	text, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("search_notes(%v): content %T; want text", args, res.Content[0])
	}
	return strings.Split(text.Text, "\n")
}

// The tool as the demo's agent calls it: 20 lines by default, the limit
// clamped to at least 1, and a plain sentence when nothing matches.
func TestSearchNotesTool(t *testing.T) {
	if got := callSearch(t, map[string]any{"query": "standup"}); len(got) != 20 {
		t.Errorf("default limit: %d lines; want 20", len(got))
	}
	if got := callSearch(t, map[string]any{"query": "standup", "limit": 3}); len(got) != 3 || !strings.HasPrefix(got[0], "standup.md: 2026-09-01 standup: ") {
		t.Errorf("limit 3: %q", got)
	}
	if got := callSearch(t, map[string]any{"query": "standup", "limit": 0}); len(got) != 1 {
		t.Errorf("limit 0: %d lines; want 1 (at least one)", len(got))
	}
	// September to November: 91 standups, fewer than maxLimit.
	if got := callSearch(t, map[string]any{"query": "standup", "limit": 100000}); len(got) != 91 {
		t.Errorf("limit 100000: %d lines; want all 91", len(got))
	}
	if got := callSearch(t, map[string]any{"query": "release blocker"}); len(got) != 1 || got[0] != "release.md: The release blocker is the flaky history.page test on macOS." {
		t.Errorf("release blocker: %q", got)
	}
	if got := callSearch(t, map[string]any{"query": "no such words here"}); len(got) != 1 || got[0] != "no matching notes" {
		t.Errorf("no match: %q", got)
	}
}

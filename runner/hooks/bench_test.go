package hooks

import (
	"encoding/json"
	"testing"

	"github.com/magi-code/magi-code/runner/config"
)

// BenchmarkPreToolUseNoMatch is the cost of a tool call whose hooks all
// match other tools: no process, no encoding.
func BenchmarkPreToolUseNoMatch(b *testing.B) {
	r := New([]config.Hook{
		{Event: PreToolUse, Matcher: "mcp__.*", Command: "true"},
		{Event: PreToolUse, Matcher: "write_file|edit_file", Command: "true"},
		{Event: PostToolUse, Command: "true"},
	}, b.TempDir(), "test", nil)
	args := json.RawMessage(`{"command":"ls"}`)
	b.ReportAllocs()
	for b.Loop() {
		if block, _, err := r.PreToolUse(b.Context(), "shell", args); block || err != nil {
			b.Fatal(block, err)
		}
	}
}

// BenchmarkPreToolUseTrue is one hook run end to end: spawn /bin/sh -c true,
// feed stdin, drain, reap, kill the group.
func BenchmarkPreToolUseTrue(b *testing.B) {
	r := New([]config.Hook{{Event: PreToolUse, Command: "true"}}, b.TempDir(), "test", nil)
	args := json.RawMessage(`{"command":"ls"}`)
	for b.Loop() {
		if block, _, err := r.PreToolUse(b.Context(), "shell", args); block || err != nil {
			b.Fatal(block, err)
		}
	}
}

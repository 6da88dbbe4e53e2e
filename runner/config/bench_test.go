package config

import (
	"context"
	"testing"
)

// BenchmarkLoad is the startup load with the fixture provider and no MCP
// servers: global settings, a project settings file, both AGENTS.md, one
// skill and one profile. Goal: well under 5 ms.
func BenchmarkLoad(b *testing.B) {
	w := newWorld(b)
	w.write(b, "home/settings.toml", fixtureGlobal+"model = \"fixture-model\"\n[tools]\napproval = \"ask\"\n", 0o644)
	w.write(b, "cwd/.magi-code/settings.toml", "thinking = \"low\"\n", 0o644)
	w.write(b, "home/AGENTS.md", "Be kind.\n", 0o644)
	w.write(b, "cwd/AGENTS.md", "Use Go.\n", 0o644)
	w.write(b, "home/skills/review/SKILL.md", "---\ndescription: reviews\n---\nReview.\n", 0o644)
	w.write(b, "home/agents/helper.md", "---\ndescription: helps\n---\nHelp.\n", 0o644)
	env := w.env()
	env.Logf = nil
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, code := Load(ctx, env); code != "" {
			b.Fatalf("Load = %q", code)
		}
	}
}

package runner

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkAdmitAndNew is the runner's share of answering initialize with
// the fixture provider and no MCP servers, in the shape the start-up
// benchmarks use (an MC_HOME holding only settings.toml, a cwd without
// project files): admission (settings, instructions, skills, profiles)
// and the runtime's construction, then its close.
func BenchmarkAdmitAndNew(b *testing.B) {
	home := b.TempDir()
	cwd := b.TempDir()
	settings := "provider = \"fixture\"\nmodel = \"fixture-model\"\n"
	if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte(settings), 0o644); err != nil {
		b.Fatal(err)
	}
	env := Env{Home: home, MCHome: home, Cwd: cwd, Getenv: func(string) string { return "" }}
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		adm, code := Admit(ctx, env)
		if code != "" {
			b.Fatalf("Admit = %q", code)
		}
		rt, code := New(ctx, adm, Options{})
		if code != "" {
			b.Fatalf("New = %q", code)
		}
		rt.Close(ctx)
	}
}

package worker

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/dispatch"
)

// initWith runs the initialization worker against a global settings file.
func initWith(t *testing.T, ctx context.Context, settings string) dispatch.InitDone {
	t.Helper()
	root := t.TempDir()
	home, cwd := filepath.Join(root, "home"), filepath.Join(root, "work")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	p, _ := newTestPool(t)
	p.opts.Env = runner.Env{MCHome: home, Cwd: cwd}
	done := make(chan dispatch.InitDone, 1)
	p.StartInit(ctx, nil, func(d dispatch.InitDone) { done <- d })
	d := <-done
	p.Wait()
	p.Teardown(context.Background())
	return d
}

func TestInitStartupCodes(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name     string
		ctx      context.Context
		settings string
		want     protocol.Code
		provider string
	}{
		{"ready", context.Background(), "provider = \"fixture\"\n", "", "fixture"},
		{"no provider", context.Background(), "", protocol.CodeProviderUnavailable, ""},
		{"invalid toml", context.Background(), "provider = \n", protocol.CodeConfigurationInvalid, ""},
		{"secret-like model is null", context.Background(), "provider = \"fixture\"\nmodel = \"sk-abcdefghijklmnopqrstuvwxyz123456\"\n", "", "fixture"},
		{"mcp server fails", context.Background(), "provider = \"fixture\"\n[mcp_servers.broken]\ncommand = \"/bin/false\"\n", protocol.CodeMCPUnavailable, "fixture"},
		{"cancelled", cancelled, "provider = \"fixture\"\n", protocol.CodeStartupCancelled, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := initWith(t, c.ctx, c.settings)
			if d.Code != c.want || d.Sel.Provider != c.provider {
				t.Fatalf("init = %+v; want code %q, provider %q", d, c.want, c.provider)
			}
			if c.name == "secret-like model is null" && d.Sel.Model != "" {
				t.Fatalf("secret-like model reported as %q", d.Sel.Model)
			}
		})
	}
}

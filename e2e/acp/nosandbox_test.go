//go:build unix

package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/runner/sandbox"
)

// autoDescriptions are the Auto mode's descriptions in a session answer:
// the config option's and the legacy modes'.
func autoDescriptions(t *testing.T, f frame) []string {
	t.Helper()
	var res struct {
		ConfigOptions []struct {
			ID      string `json:"id"`
			Options []struct {
				Value, Description string
			} `json:"options"`
		} `json:"configOptions"`
		Modes struct {
			AvailableModes []struct {
				ID, Description string
			} `json:"availableModes"`
		} `json:"modes"`
	}
	if f.Error != nil || json.Unmarshal(f.Result, &res) != nil {
		t.Fatalf("answer %s", f.raw)
	}
	var out []string
	for _, o := range res.ConfigOptions {
		for _, v := range o.Options {
			if o.ID == "mode" && v.Value == "auto" {
				out = append(out, v.Description)
			}
		}
	}
	for _, m := range res.Modes.AvailableModes {
		if m.ID == "auto" {
			out = append(out, m.Description)
		}
	}
	if len(out) != 2 {
		t.Fatalf("auto mode descriptions %q in %s", out, f.raw)
	}
	return out
}

// The Auto mode says what it does on this machine: where no OS sandbox
// confines commands (here turned off in the settings; a kernel without
// Landlock reads the same), shell commands ask, and the description
// promises no sandbox; where one does, it says the sandbox applies.
func TestAutoModeSaysNoSandbox(t *testing.T) {
	for _, tc := range []struct {
		extra string
		want  string
		bad   string
	}{
		{"[tools.sandbox]\nmode = \"off\"\n", "no OS sandbox", "sandbox still appl"},
		{"", "the OS sandbox still apply", "no OS sandbox"},
	} {
		ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Extra: tc.extra})
		a := start(t, ws)
		a.initialize()
		r, _ := a.call("session/new", map[string]any{"cwd": ws.Cwd, "mcpServers": []any{}})
		for _, d := range autoDescriptions(t, r) {
			if tc.extra == "" && !sandbox.Probe().Available {
				t.Skip("no OS sandbox on this machine")
			}
			if !strings.Contains(d, tc.want) || strings.Contains(d, tc.bad) {
				t.Errorf("settings %q: Auto is described %q; want %q", tc.extra, d, tc.want)
			}
		}
		a.wantExit(0)
	}
}

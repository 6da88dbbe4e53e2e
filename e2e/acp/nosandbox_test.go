//go:build unix

package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/acp"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/runner/sandbox"
	"github.com/magi-code/magi-code/runner/tools"
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

// TestAutoModeConfines drives `magi-code acp` whose settings keep the
// default approval (ask) and switches the session to the Auto mode: its
// shell commands and hooks then run as under approval = "auto". Where the
// OS sandbox is, they run in it: the command's write outside the
// workspace and into .git and the stop hook's write outside all fail,
// unasked; where none is (mode = "off"), the command
// asks and, rejected, changes nothing. The canaries are outside the temp
// directory, which the sandbox keeps writable.
func TestAutoModeConfines(t *testing.T) {
	for _, tc := range []struct {
		name, extra string
		wantAsk     bool
	}{{"sandbox", "", false}, {"no sandbox", "[tools.sandbox]\nmode = \"off\"\n", true}} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.wantAsk && !sandbox.Probe().Available {
				t.Skip("no OS sandbox on this machine")
			}
			outside := ostest.OutsideTemp(t)
			out, hooked := filepath.Join(outside, "by-command"), filepath.Join(outside, "by-hook")
			ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{response(text("replaced below: the canaries are made first"))}, Extra: tc.extra + "\n[[hooks]]\nevent = \"stop\"\ncommand = " + clienttest.Quote("echo x > "+hooked) + "\n"})
			clienttest.WriteScript(t, ws.ScriptPath(), response(shell("echo x > "+out+"; mkdir -p .git && echo x > .git/planted")), response(text("done")))
			a := start(t, ws)
			a.initialize()
			sid := a.newSession()
			if r, _ := a.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "value": "auto"}); r.Error != nil {
				t.Fatalf("set mode: %s", r.raw)
			}
			asked := 0
			resp, _ := a.until(a.prompt(sid, "go"), func(f frame) {
				if f.Method == "session/request_permission" {
					asked++
					// The request says why it asks, beside the command.
					if want := acp.ReasonPrefix + tools.ReasonUnconfined; !strings.Contains(f.raw, want) {
						t.Errorf("the permission request does not say %q: %s", want, f.raw)
					}
					a.respond(f.ID, selected("reject_once"))
				}
			})
			if stopReason(t, resp) != "end_turn" {
				t.Fatalf("prompt: %s", resp.raw)
			}
			if (asked == 1) != tc.wantAsk || asked > 1 {
				t.Errorf("asked %d times; want a question %v", asked, tc.wantAsk)
			}
			for _, p := range []string{out, hooked, filepath.Join(ws.Cwd, ".git", "planted")} {
				if p == hooked && tc.wantAsk {
					continue // a hook cannot ask: without a sandbox it runs as the person's command
				}
				if clienttest.FileExists(p) {
					t.Errorf("%s was written under the Auto mode", p)
				}
			}
			a.wantExit(0)
		})
	}
}

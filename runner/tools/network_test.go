package tools

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	shellcheck "github.com/magi-code/magi-code/runner/shell"
)

// TestShellNetwork: what a confined shell call gets and says, by rule and
// argument: the network its sandbox wrapper is given, whether it asks and
// why (a destructive command that asks for the network names both), the
// failed summary's "no network" and the model's hint to ask for it, and
// the request that shows the network.
func TestShellNetwork(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rule    NetworkRule
		args    string
		open    bool
		reason  string
		noNetOK bool // the failed summary says "no network"
	}{
		{"on request, none", NetworkOnRequest, `{"command":"exit 3"}`, false, "", true},
		{"on request, false", NetworkOnRequest, `{"command":"exit 3","network":false}`, false, "", true},
		{"on request, asked", NetworkOnRequest, `{"command":"exit 3","network":true}`, true, ReasonNetwork, false},
		{"open, none", NetworkOpen, `{"command":"exit 3"}`, true, "", false},
		{"open, asked", NetworkOpen, `{"command":"exit 3","network":true}`, true, "", false},
		{"unclosable", NetworkUnclosable, `{"command":"exit 3"}`, true, ReasonNetworkUnclosable, false},
		{"destructive with network", NetworkOnRequest, `{"command":"git push --force origin main; exit 3","network":true}`, true, string(shellcheck.ReasonGitPush) + "; " + ReasonNetwork, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got *bool
			sh := &shell{o: Options{Cwd: t.TempDir(), Network: tc.rule, Sandbox: func(_ *exec.Cmd, _, network bool) error {
				got = &network
				return nil
			}}}
			sh.o = sh.o.withDefaults()
			force, why := sh.ForceApproval(json.RawMessage(tc.args))
			if force != (tc.reason != "") || why != tc.reason {
				t.Errorf("ForceApproval = %v %q; want %q", force, why, tc.reason)
			}
			res := sh.Run(context.Background(), json.RawMessage(tc.args))
			if got == nil || *got != tc.open {
				t.Fatalf("the wrapper got network %v; want %v", got, tc.open)
			}
			wantSum := "(" + SandboxSummary + ")"
			if tc.noNetOK {
				wantSum = "(" + SandboxSummary + "; " + NoNetworkSummary + ")"
			}
			if !res.IsError || !strings.HasSuffix(res.Summary, wantSum) {
				t.Errorf("summary %q; want it to end %q", res.Summary, wantSum)
			}
			if hint := strings.Contains(res.Text, NoNetworkHint); hint != tc.noNetOK {
				t.Errorf("result %q: hint %v, want %v", res.Text, hint, tc.noNetOK)
			}
			if net := strings.HasPrefix(sh.Request(json.RawMessage(tc.args)), "shell: [network] "); net != strings.Contains(tc.args, `"network":true`) {
				t.Errorf("request %q names the network: %v", sh.Request(json.RawMessage(tc.args)), net)
			}
		})
	}
	// Without a sandbox (approval = "ask", where every call asks anyway)
	// the argument forces nothing.
	sh := &shell{o: Options{Cwd: t.TempDir()}}
	if force, why := sh.ForceApproval(json.RawMessage(`{"command":"true","network":true}`)); force {
		t.Errorf("unconfined: ForceApproval = %v %q", force, why)
	}
}

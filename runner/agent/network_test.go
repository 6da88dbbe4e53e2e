package agent

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/approval"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// summaries records what each approval request showed.
type summaries struct {
	d     approval.Decision
	asked []string
}

func (s *summaries) Approve(_ context.Context, _, summary string) (approval.Decision, error) {
	s.asked = append(s.asked, summary)
	return s.d, nil
}

// TestNetworkDecision is the approval table of the shell's network
// argument, through a real run and the real shell tool, its sandbox
// wrapper recording what each started command got: under auto with the
// sandbox, a command without network runs unasked with the network
// closed, one with "network": true asks (the request names the network)
// and, allowed, runs with it open, denied, does not run; with the global
// network = true nothing asks and every command gets it; where the sandbox
// cannot close it every command asks and gets it; under ask (no sandbox)
// every command asks, as before, and runs unconfined.
func TestNetworkDecision(t *testing.T) {
	const closed, open, unconfined, notRun = "closed", "open", "unconfined", "not run"
	for _, tc := range []struct {
		name    string
		mode    string
		rule    tools.NetworkRule
		sandbox bool
		args    string
		answer  approval.Decision
		asks    bool
		want    string
	}{
		{"auto: no network", ApprovalAuto, tools.NetworkOnRequest, true, `{"command":"true"}`, approval.Denied, false, closed},
		{"auto: network false", ApprovalAuto, tools.NetworkOnRequest, true, `{"command":"true","network":false}`, approval.Denied, false, closed},
		{"auto: network asked, allowed", ApprovalAuto, tools.NetworkOnRequest, true, `{"command":"true","network":true}`, approval.Allowed, true, open},
		{"auto: network asked, denied", ApprovalAuto, tools.NetworkOnRequest, true, `{"command":"true","network":true}`, approval.Denied, true, notRun},
		{"auto: global network", ApprovalAuto, tools.NetworkOpen, true, `{"command":"true","network":true}`, approval.Denied, false, open},
		{"auto: global network, not asked for", ApprovalAuto, tools.NetworkOpen, true, `{"command":"true"}`, approval.Denied, false, open},
		{"auto: cannot close", ApprovalAuto, tools.NetworkUnclosable, true, `{"command":"true"}`, approval.Allowed, true, open},
		{"auto: cannot close, denied", ApprovalAuto, tools.NetworkUnclosable, true, `{"command":"true"}`, approval.Denied, true, notRun},
		{"ask: no network", ApprovalAsk, tools.NetworkOnRequest, false, `{"command":"true"}`, approval.Allowed, true, unconfined},
		{"ask: network", ApprovalAsk, tools.NetworkOnRequest, false, `{"command":"true","network":true}`, approval.Allowed, true, unconfined},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wrapped := unconfined
			opts := tools.Options{Cwd: t.TempDir(), Network: tc.rule}
			if tc.sandbox {
				opts.Sandbox = func(_ *exec.Cmd, _, network bool) error {
					wrapped = map[bool]string{true: open, false: closed}[network]
					return nil
				}
			}
			set := tools.Builtin(opts)
			ap := &summaries{d: tc.answer}
			args := strings.Replace(tc.args, `"true"`, `"echo ran-marker"`, 1)
			rec, err := networkRun(t, args, set, tc.mode, ap, nil)
			if err != nil {
				t.Fatal(err)
			}
			started := notRun
			if strings.Contains(strings.Join(rec.events, "\n"), `"ran-marker\n"`) {
				started = wrapped
			}
			if started != tc.want {
				t.Errorf("the command: %s; want %s", started, tc.want)
			}
			if asked := len(ap.asked) > 0; asked != tc.asks {
				t.Fatalf("asked %q; want asked %v", ap.asked, tc.asks)
			}
			if tc.asks && tc.sandbox && !strings.Contains(ap.asked[0], "network") {
				t.Errorf("the request %q does not name the network", ap.asked[0])
			}
		})
	}
}

// TestNetworkGrantKeyed: a session grant is keyed with the network
// argument: allowing `true` for the session (under ask) does not allow
// `true` with the network, which asks again; the same call again does not.
func TestNetworkGrantKeyed(t *testing.T) {
	set := tools.Builtin(tools.Options{Cwd: t.TempDir()})
	g := approval.NewGrants()
	ap := &summaries{d: approval.AllowedForSession}
	for i, tc := range []struct {
		args string
		asks bool
	}{
		{`{"command":"true"}`, true},
		{`{"command":"true"}`, false},
		{`{"command":"true","network":true}`, true},
		{`{"command":"true","network":true}`, false},
		{`{"command":"true","network":false}`, true},
	} {
		before := len(ap.asked)
		if _, err := networkRun(t, tc.args, set, ApprovalAsk, ap, g); err != nil {
			t.Fatal(err)
		}
		if asked := len(ap.asked) > before; asked != tc.asks {
			t.Errorf("call %d %s: asked %v; want %v", i, tc.args, asked, tc.asks)
		}
	}
}

// networkRun runs one turn whose model calls shell with args under mode.
func networkRun(t *testing.T, args string, set *tools.Set, mode string, ap Approver, g *approval.Grants) (*recorder, error) {
	t.Helper()
	cfg := Config{Provider: fixtureprov.New(parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"shell","arguments":`+args+`}}]},{"steps":[{"text":"ok"}]}]}`)),
		Tools: set, Approval: mode, Approver: ap, Grants: g}
	rec := &recorder{}
	_, err := Run(context.Background(), cfg, nil, "go", rec)
	return rec, err
}

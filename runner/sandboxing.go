package runner

import (
	"os/exec"

	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/sandbox"
)

// confinement is how the runtime confines commands it runs without
// asking: wrap rewrites a command to start through the OS sandbox, or is
// nil where there is none (mode off, no Landlock, or the executable cannot
// be found to act as the launcher).
type confinement struct {
	wrap func(*exec.Cmd) error
}

// newConfinement probes the OS sandbox once at startup and logs what
// commands run under: "sandbox: ..." (docs/configuration.md,
// [tools.sandbox]).
func newConfinement(s config.Sandbox, logf func(string, ...any)) confinement {
	st := sandbox.Probe()
	if s.Mode == sandbox.ModeOff || !st.Available {
		logf("sandbox: %s", st.Text(s.Mode))
		return confinement{}
	}
	self, err := sandbox.Self()
	if err != nil {
		logf("sandbox: unavailable: the launcher (this executable) cannot be found; the destructive-command guard stands alone")
		return confinement{}
	}
	logf("sandbox: %s", st.Text(s.Mode))
	roots := append([]string(nil), s.WritableRoots...)
	return confinement{wrap: func(cmd *exec.Cmd) error {
		p := sandbox.Policy{Writable: sandbox.Defaults(cmd.Dir, cmd.Env, roots), Network: s.Network}
		return p.Wrap(cmd, self)
	}}
}

// when returns the wrapper for commands run without asking under approval:
// only "auto" confines (under "ask" the person approves each command).
func (c confinement) when(approval string) func(*exec.Cmd) error {
	if approval != "auto" {
		return nil
	}
	return c.wrap
}

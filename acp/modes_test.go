package acp

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner"
)

// The Auto mode's description follows what confines commands run without
// asking: the sandbox where it is, "no OS sandbox" where it is not
// (unavailable or off) or unknown to be; the other modes never change.
func TestModeDescriptions(t *testing.T) {
	for _, sb := range []string{runner.SandboxConfined, runner.SandboxUnavailable, runner.SandboxOff, ""} {
		unconfined := sb == runner.SandboxUnavailable || sb == runner.SandboxOff
		for _, m := range modes {
			got := modeDesc(m, sb)
			if m.id != ModeAuto || !unconfined {
				if got != m.desc {
					t.Errorf("mode %s, sandbox %q: %q; want %q", m.id, sb, got, m.desc)
				}
				continue
			}
			if !strings.Contains(got, "no OS sandbox") || strings.Contains(got, "sandbox still apply") {
				t.Errorf("auto without a sandbox (%q) is described %q", sb, got)
			}
		}
		st := modeState(ModeAuto, sb)
		for _, am := range st["availableModes"].([]obj) {
			if am["id"] == ModeAuto && strings.Contains(am["description"].(string), "no OS sandbox") != unconfined {
				t.Errorf("legacy modes, sandbox %q: auto is %q", sb, am["description"])
			}
		}
	}
}

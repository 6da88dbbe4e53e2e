package runner

import (
	"testing"

	"github.com/magi-code/magi-code/runner/config"
)

// Options.Approval replaces the settings' approval mode for the runtime,
// on a copy (the admitted snapshot is shared); ask makes Code Mode ask
// too, auto leaves it; anything else keeps the settings'.
func TestWithApproval(t *testing.T) {
	for _, c := range []struct {
		settings, code, mode string
		want, wantCode       string
	}{
		{"ask", "ask", "auto", "auto", "ask"},
		{"auto", "auto", "ask", "ask", "ask"},
		{"ask", "auto", "ask", "ask", "ask"},
		{"auto", "auto", "", "auto", "auto"},
		{"ask", "ask", "Auto", "ask", "ask"},
		{"ask", "ask", "never", "ask", "ask"},
	} {
		snap := &config.Snapshot{}
		snap.Settings.Tools.Approval, snap.Settings.Tools.CodeMode.Approval = c.settings, c.code
		got := withApproval(snap, c.mode)
		if got.Settings.Tools.Approval != c.want || got.Settings.Tools.CodeMode.Approval != c.wantCode {
			t.Errorf("%+v: approval %q, code mode %q", c, got.Settings.Tools.Approval, got.Settings.Tools.CodeMode.Approval)
		}
		if snap.Settings.Tools.Approval != c.settings || snap.Settings.Tools.CodeMode.Approval != c.code {
			t.Errorf("%+v: the admitted snapshot changed", c)
		}
	}
}

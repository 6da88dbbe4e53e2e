package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/sandbox"
	"github.com/magi-code/magi-code/runner/tools"
)

// TestShellConfinedUnderAuto: the runtime's shell runs in the OS sandbox
// exactly when it runs without asking: approval = "auto" with
// [tools.sandbox] mode = "workspace-write" (Code Mode's shell by its own
// approval); under "ask", or with mode = "off", it does not. Startup logs
// which. Where the kernel has no Landlock nothing is confined and the log
// says so.
func TestShellConfinedUnderAuto(t *testing.T) {
	st := sandbox.Probe()
	// outside is writable to this test but to no confined command: not the
	// workspace, a temp directory or the package directory (a clone may be
	// below /tmp).
	outside := ostest.OutsideTemp(t)
	// wrote runs the shell command of tool through run and reports whether
	// it wrote a file outside the workspace.
	n := 0
	wrote := func(t *testing.T, run func(cmd string)) bool {
		t.Helper()
		n++
		f := filepath.Join(outside, "f"+strconv.Itoa(n))
		run("echo x > " + f)
		_, err := os.Stat(f)
		return err == nil
	}
	for _, tc := range []struct {
		name, approval, codeApproval, mode string
		direct, code                       bool // confined
		unsandboxed                        bool // [tools] unsandboxed_auto
	}{
		{"auto", "auto", "ask", "workspace-write", true, false, false},
		{"ask", "ask", "ask", "workspace-write", false, false, false},
		{"code mode auto", "ask", "auto", "workspace-write", false, true, false},
		{"auto, sandbox off, unsandboxed_auto", "auto", "auto", "off", false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs strings.Builder
			logf := func(f string, a ...any) { fmt.Fprintf(&logs, f+"\n", a...) }
			snap := &config.Snapshot{Provider: "fixture", Model: "fixture-model", Cwd: t.TempDir(), Home: t.TempDir()}
			snap.Settings.Tools.Approval = tc.approval
			snap.Settings.Tools.UnsandboxedAuto = tc.unsandboxed
			snap.Settings.Tools.CodeMode = config.CodeMode{Enabled: true, Allow: []string{"shell"}, Approval: tc.codeApproval, TimeoutMs: 5000}
			snap.Settings.Tools.Sandbox = config.Sandbox{Mode: tc.mode, Network: true}
			rt, code := New(t.Context(), &Admitted{snap: snap}, Options{Logf: logf})
			if code != "" {
				t.Fatal(code)
			}
			defer rt.Close(t.Context())
			wantLog := "sandbox: " + st.Text(tc.mode)
			if !strings.Contains(logs.String(), wantLog) {
				t.Errorf("log %q; want %q", logs.String(), wantLog)
			}
			direct, _ := rt.tools.Get("shell")
			res := direct.Run(context.Background(), json.RawMessage(`{"command":"exit 3"}`))
			if got := strings.Contains(res.Summary, tools.SandboxSummary); got != (tc.direct && st.Available) {
				t.Errorf("direct shell summary %q; confined %v, want %v", res.Summary, got, tc.direct && st.Available)
			}
			confined := tc.direct && st.Available
			if got := wrote(t, func(cmd string) {
				direct.Run(context.Background(), json.RawMessage(`{"command":"`+cmd+`"}`))
			}); got == confined {
				t.Errorf("direct shell wrote outside the workspace: %v; confined %v", got, confined)
			}
			runCode, _ := rt.tools.Get("run_code")
			// Under "ask" Code Mode's shell asks, and here no one answers:
			// only an "auto" one runs.
			confined = tc.code && st.Available
			if got := wrote(t, func(cmd string) {
				runCode.Run(context.Background(), json.RawMessage(`{"code":"try { tools.shell({command: '`+cmd+`'}) } catch (e) {}"}`))
			}); tc.codeApproval == "auto" && got == confined {
				t.Errorf("Code Mode shell wrote outside the workspace: %v; confined %v", got, confined)
			}
			res = runCode.Run(context.Background(), json.RawMessage(`{"code":"try { tools.shell({command: 'exit 3'}) } catch (e) { return e.message }"}`))
			if got := strings.Contains(res.Text, tools.SandboxSummary); got != (tc.code && st.Available) {
				t.Errorf("Code Mode shell result %q; confined %v, want %v", res.Text, got, tc.code && st.Available)
			}
		})
	}
}

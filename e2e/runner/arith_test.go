package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/protocol"
	guard "github.com/magi-code/magi-code/runner/shell"
)

// TestArithmeticAsksUnderAuto: through serve --stdio (the fixture
// provider's script) under approval = "auto" with no OS sandbox (mode =
// "off", unsandboxed_auto = true: only the guard rail stands), arithmetic
// on a value bash would run command substitutions from asks, whether the
// value is the command's own (X='a[$(rm -f CANARY)]'; echo $((X))) or
// read from a repository file by bash (the tool's /bin/sh may be dash,
// which does not evaluate values; the guard rail reads every line as
// bash); denied, neither runs and the canary, outside the temp
// directory, remains. Arithmetic on a literal runs unasked.
func TestArithmeticAsksUnderAuto(t *testing.T) {
	t.Parallel()
	root := ostest.OutsideTemp(t)
	home, wsDir, canary := filepath.Join(root, "home"), filepath.Join(root, "proj"), filepath.Join(root, "canary")
	for _, d := range []string{home, wsDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, content := range map[string]string{canary: "keep\n", filepath.Join(wsDir, "count.txt"): "a[$(rm -f " + canary + ")]\n"} {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	asks := []string{
		"X='a[$(rm -f " + clienttest.Quote(canary) + ")]'; echo $((X))",
		"bash -c 'read -r n < count.txt; [[ $n -gt 0 ]] && echo many'",
	}
	runs := []string{"n=3; echo $((n+3)) > out.txt"}
	script := callScript(t, root, shellCalls(append(append([]string(nil), asks...), runs...)...))
	ws := &clienttest.Workspace{Home: filepath.Join(root, "mchome"), Cwd: wsDir}
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), fixtureAuto(script, "unsandboxed_auto = true\n\n[tools.sandbox]\nmode = \"off\"\n"))
	ch := startChild(t, ws, client.Options{Env: []string{"MC_HOME=" + ws.Home, "HOME=" + home, "PATH=/usr/bin:/bin"}})
	sid := ch.Create().SessionID
	runID, adm := ch.StartTurn(sid, "count")
	evs := denyAsks(t, ch, sid, runID, len(asks), guard.ReasonArithmetic)
	r := ch.Finish(sid, runID, adm, evs)
	r.WantOutcome(t, "completed", "")
	if n := r.Count(protocol.EventApprovalRequested); n != len(asks) {
		t.Errorf("%d approval requests; want %d", n, len(asks))
	}
	ch.Shutdown()
	if got := readFile(t, canary); got != "keep\n" {
		t.Errorf("canary = %q; want it kept", got)
	}
	if got := readFile(t, filepath.Join(wsDir, "out.txt")); got != "6\n" {
		t.Errorf("out.txt = %q; want the literal arithmetic to have run unasked (activities %+v)", got, r.Activities)
	}
}

package runner

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/proctest"
	"github.com/magi-code/magi-code/runner/sandbox"
)

// TestNoProcessOutlivesTheCommandUnderAuto: under approval = "auto",
// through serve --stdio, a confined command that starts a process in a
// session of its own (setsid, out of the group the agent kills) leaves
// nothing running once its result is back, where the sandbox gives each
// command a PID namespace (config show: "no process outlives its
// command"); the command sees its own processes only, not the agent.
// Elsewhere the process survives, as docs/configuration.md says.
func TestNoProcessOutlivesTheCommandUnderAuto(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	tok := proctest.Token()
	t.Cleanup(func() { proctest.KillWithArg(tok) })
	reqs := s.confinedShells(t, "leave a daemon", []string{
		"setsid sh -c 'sleep " + tok + "' </dev/null >/dev/null 2>&1 & echo started",
		"echo processes: /proc/[0-9]*",
	})
	mode := sandbox.ProbeWithMounts().Mounts
	ownPIDs := mode == sandbox.MountsNSPID || mode == sandbox.MountsUserNSPID
	t.Logf("uid %d: mounts %q", os.Getuid(), mode)
	if !ownPIDs && holdsSysAdmin(t) {
		// Root with CAP_SYS_ADMIN can make and mount a PID namespace.
		t.Fatalf("no PID namespace for confined commands with CAP_SYS_ADMIN (mounts %q)", mode)
	}
	if !ownPIDs {
		if len(proctest.WithArg(tok)) == 0 {
			t.Error("without a PID namespace the setsid child is expected to survive (documented); none did")
		}
		return
	}
	clienttest.WaitFor(t, "the setsid child to be gone", func() bool { return len(proctest.WithArg(tok)) == 0 })
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "processes: /proc/1\\n") {
		t.Errorf("the command saw other processes than its own: %.600s", last)
	}
}

// holdsSysAdmin reports whether this process holds CAP_SYS_ADMIN (bit 21
// of CapEff in /proc/self/status).
func holdsSysAdmin(t *testing.T) bool {
	t.Helper()
	status := readFile(t, "/proc/self/status")
	for line := range strings.Lines(status) {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && caps&(1<<21) != 0
		}
	}
	return false
}

package runner

import (
	"regexp"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/proctest"
)

// TestNoProcessOutlivesTheCommandUnderAuto: under approval = "auto",
// through serve --stdio, a confined command that starts processes in a
// session of their own (setsid, a double fork: out of the group the agent
// kills) leaves nothing running once its result is back, and cannot
// signal what supervises it to get out from under it. Its process
// numbers are the host's: what it prints of itself names it here.
func TestNoProcessOutlivesTheCommandUnderAuto(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	tok := proctest.NewToken(t)
	reqs := s.confinedShells(t, "leave a daemon", []string{
		"setsid sh -c 'sleep " + tok + "' </dev/null >/dev/null 2>&1 & (setsid sleep " + tok + " </dev/null >/dev/null 2>&1 &); echo started",
		"setsid sleep " + tok + " </dev/null >/dev/null 2>&1 & kill -KILL $PPID 2>/dev/null; echo pid=$$",
	})
	clienttest.WaitFor(t, "the command's processes to be gone", func() bool { return len(proctest.WithArg(tok)) == 0 })
	m := regexp.MustCompile(`pid=([0-9]+)`).FindStringSubmatch(string(reqs[len(reqs)-1].Body))
	if m == nil || m[1] == "1" {
		t.Errorf("the command's $$: %q; want a process number of the host's", m)
	}
}

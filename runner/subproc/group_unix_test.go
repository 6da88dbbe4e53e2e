//go:build unix

package subproc

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
)

// TestKillGroupReachesChildren starts a shell that leaves a background child
// holding its output pipe, kills the group, and reads the pipe to EOF: EOF
// comes only once every process of the group holding the pipe is gone (a
// failure hangs until the test deadline, it does not pass by timing).
func TestKillGroupReachesChildren(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	cmd := exec.Command("/bin/sh", "-c", "sleep 600 & echo started; wait")
	cmd.Stdout = pw
	OwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	r := bufio.NewReader(pr)
	if line, err := r.ReadString('\n'); line != "started\n" || err != nil {
		t.Fatalf("first line = %q, %v; want started", line, err)
	}
	if err := KillGroup(cmd.Process.Pid); err != nil {
		t.Fatalf("KillGroup = %v; want nil", err)
	}
	_ = cmd.Wait()
	if rest, err := io.ReadAll(r); len(rest) != 0 || err != nil {
		t.Fatalf("after KillGroup read %q, %v; want EOF", rest, err)
	}
	if err := KillGroup(cmd.Process.Pid); err != nil {
		t.Errorf("KillGroup on a gone group = %v; want nil", err)
	}
}

// TestKillGroupIgnoresNoProcess: no group is led by 0, -1 or 1, and
// KillGroup signals nothing for them: kill(0) would reach magi-code's own
// group, kill(-1) every process it may signal (a pid 1 read from a
// command in a PID namespace of its own, say).
func TestKillGroupIgnoresNoProcess(t *testing.T) {
	var sent []int
	kill = func(pid int, _ syscall.Signal) error { sent = append(sent, pid); return nil }
	t.Cleanup(func() { kill = syscall.Kill })
	for _, pgid := range []int{0, -1, 1} {
		if err := KillGroup(pgid); err != nil {
			t.Errorf("KillGroup(%d) = %v; want nil", pgid, err)
		}
	}
	if err := KillGroup(2); err != nil || !slices.Equal(sent, []int{-2}) {
		t.Errorf("signalled %v (%v); want only group 2's", sent, err)
	}
}

package sandbox

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestOwnSession: a confined command runs in a session of its own, so it
// has no controlling terminal to push input into (TIOCSTI on /dev/tty
// reaches the person's shell, which runs what it reads unconfined). Its
// process group is its own too, as group kills need.
func TestOwnSession(t *testing.T) {
	requireLandlock(t)
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	// stat fields 5 and 6 (after the pid and "(sh)"): pgrp and session.
	cmd := exec.Command("/bin/sh", "-c", `read -r pid comm state ppid pgrp sid rest < /proc/$$/stat; echo "$$ $pgrp $sid"`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // as runner/subproc sets it
	if err := (Policy{Writable: []string{t.TempDir()}}).Wrap(cmd, self); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("confined command: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		t.Fatalf("output %q", out)
	}
	if f[1] != f[0] {
		t.Errorf("pgrp %s, want the command's own (%s)", f[1], f[0])
	}
	if f[2] != f[0] {
		t.Errorf("session %s, want the command's own (%s): it shares the caller's terminal", f[2], f[0])
	}
}

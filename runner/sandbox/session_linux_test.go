package sandbox

import (
	"errors"
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

// TestSignalsScoped: a confined command cannot signal a process outside
// the sandbox (here the test itself, its parent), with the network open or
// closed (Landlock ABI 6 or later); it can signal what it started.
func TestSignalsScoped(t *testing.T) {
	requireLandlock(t)
	if st := Probe(); st.ABI < 6 {
		t.Skipf("Landlock ABI %d does not scope signals", st.ABI)
	}
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	for _, network := range []bool{false, true} {
		cmd := exec.Command("/bin/sh", "-c", `sleep 30 </dev/null >/dev/null 2>&1 & child=$!; kill -0 "$child" || exit 3; kill "$child"; kill -0 "$PPID" && exit 4; exit 0`)
		if err := (Policy{Writable: []string{t.TempDir()}, Network: network}).Wrap(cmd, self); err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.ExitCode() == 3:
			t.Errorf("network %v: the command could not signal its own child (%q)", network, out)
		case errors.As(err, &ee) && ee.ExitCode() == 4:
			t.Errorf("network %v: the command signalled a process outside the sandbox", network)
		default:
			t.Errorf("network %v: %v (%q)", network, err, out)
		}
	}
}

package sandbox

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/magi-code/magi-code/internal/proctest"
)

// supervised is cmd wrapped under a policy that may write ws, with mounts
// by mode ("" for per-entry grants).
func supervised(t *testing.T, cmd *exec.Cmd, ws, mode string) {
	t.Helper()
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = ws
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + ws}
	if err := (Policy{Writable: []string{ws}, Protected: Protect(ws, "", false), Mounts: mode}).Wrap(cmd, self); err != nil {
		t.Fatal(err)
	}
}

// modes are the supervisor's cases here: read-only mounts where the
// launcher can have them, and per-entry grants.
func modes(t *testing.T) []string {
	t.Helper()
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	if m := ProbeMounts(self); m != "" {
		return []string{m, ""}
	}
	return []string{""}
}

// TestNoProcessOutlivesTheCommand: processes a confined command starts
// and that leave its process group (setsid, a double fork, a grandchild
// whose parent exited) are gone when the command's wait returns, with
// read-only mounts and with per-entry grants. The command sees the host's
// process numbers: its $$ leads its process group, and its parent (the
// supervisor) is not readable to it.
func TestNoProcessOutlivesTheCommand(t *testing.T) {
	requireLandlock(t)
	for _, mode := range modes(t) {
		t.Run("mounts="+mode, func(t *testing.T) {
			ws := t.TempDir()
			tok := proctest.NewToken(t)
			script := "setsid sleep " + tok + " </dev/null >/dev/null 2>&1 & " +
				"(setsid sh -c 'sleep " + tok + " & exit' </dev/null >/dev/null 2>&1 &) ; " +
				"sh -c 'sleep " + tok + " </dev/null >/dev/null 2>&1 & exit'; " +
				"until [ \"$(pgrep -c -f '^sleep " + tok + "$')\" = 3 ]; do :; done; " +
				"read -r pid comm state ppid pgrp rest < /proc/$$/stat; [ \"$pgrp\" = $$ ] && echo own-group; " +
				"cat /proc/$PPID/environ >/dev/null 2>&1 || echo parent-unreadable"
			cmd := exec.Command("/bin/sh", "-c", script)
			supervised(t, cmd, ws, mode)
			out, err := cmd.CombinedOutput()
			if err != nil || string(out) != "own-group\nparent-unreadable\n" {
				t.Fatalf("%v %q", err, out)
			}
			if left := proctest.WithArg(tok); len(left) != 0 {
				t.Errorf("processes outlived the command: %v", left)
			}
		})
	}
}

// TestSupervisorOutOfReach: a confined command cannot signal its
// supervisor (Landlock ABI 6 scopes signals to the command's domain), so
// it cannot kill it to leave an orphan behind it.
func TestSupervisorOutOfReach(t *testing.T) {
	requireLandlock(t)
	if st := Probe(); st.ABI < 6 {
		t.Skipf("Landlock ABI %d does not scope signals", st.ABI)
	}
	tok := proctest.NewToken(t)
	cmd := exec.Command("/bin/sh", "-c", "setsid sleep "+tok+" </dev/null >/dev/null 2>&1 & kill -KILL $PPID 2>/dev/null || kill -STOP $PPID 2>/dev/null || echo refused")
	supervised(t, cmd, t.TempDir(), "")
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "refused\n" {
		t.Fatalf("%v %q; want the signals refused", err, out)
	}
	if left := proctest.WithArg(tok); len(left) != 0 {
		t.Errorf("processes outlived the command: %v", left)
	}
}

// TestCancelEndsEverything: the end of a confined command's context (the
// agent's cancel or timeout) asks the supervisor to end it, and the
// processes that left its group end with it; the wait reports the
// command killed.
func TestCancelEndsEverything(t *testing.T) {
	requireLandlock(t)
	tok := proctest.NewToken(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", "setsid sleep "+tok+" </dev/null >/dev/null 2>&1 & sleep "+tok+" & echo started; wait")
	supervised(t, cmd, t.TempDir(), "")
	cmd.WaitDelay = time.Minute // the supervisor ends it, not this fallback
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "started\n" {
		t.Fatalf("%q %v", line, err)
	}
	cancel()
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("wait: %v; want killed", err)
	}
	if left := proctest.WithArg(tok); len(left) != 0 {
		t.Errorf("processes outlived the cancelled command: %v", left)
	}
}

// TestSupervisorEndsAsTheCommand: the wait sees what the command did: its
// exit status, or the signal that killed it, and its output.
func TestSupervisorEndsAsTheCommand(t *testing.T) {
	requireLandlock(t)
	for _, tc := range []struct {
		script string
		code   int
		sig    syscall.Signal
		out    string
	}{
		{"echo out; echo err >&2", 0, 0, "out\nerr\n"},
		{"exit 7", 7, 0, ""},
		{"kill -SEGV $$", -1, syscall.SIGSEGV, ""},
		{"kill -TERM $$", -1, syscall.SIGTERM, ""},
		{"kill -USR1 $$", -1, syscall.SIGUSR1, ""},
	} {
		cmd := exec.Command("/bin/sh", "-c", tc.script)
		supervised(t, cmd, t.TempDir(), "")
		out, err := cmd.CombinedOutput()
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		switch {
		case tc.sig != 0 && (!ws.Signaled() || ws.Signal() != tc.sig):
			t.Errorf("%q: %v; want killed by %v", tc.script, err, tc.sig)
		case tc.sig == 0 && cmd.ProcessState.ExitCode() != tc.code:
			t.Errorf("%q: %v; want exit %d", tc.script, err, tc.code)
		case string(out) != tc.out:
			t.Errorf("%q: output %q; want %q", tc.script, out, tc.out)
		}
		if strings.Contains(string(out), "goroutine") {
			t.Errorf("%q: the supervisor printed a trace: %q", tc.script, out)
		}
	}
}

// TestWrapAsksTheSupervisor: Wrap makes a command's cancellation and the
// parent-death signal its caller asked for reach the supervisor as
// stopSignal, and adds neither where the caller had none.
func TestWrapAsksTheSupervisor(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	with := exec.CommandContext(ctx, "/bin/sh", "-c", "true")
	with.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	without := exec.Command("/bin/sh", "-c", "true")
	for _, cmd := range []*exec.Cmd{with, without} {
		if err := (Policy{Writable: []string{"/w"}}).Wrap(cmd, "/usr/bin/magi-code"); err != nil {
			t.Fatal(err)
		}
	}
	if with.SysProcAttr.Pdeathsig != stopSignal || with.Cancel == nil {
		t.Errorf("with a context and a parent-death signal: %v, cancel %v; want %v and a cancel", with.SysProcAttr.Pdeathsig, with.Cancel != nil, stopSignal)
	}
	if without.SysProcAttr.Pdeathsig != 0 || without.Cancel != nil {
		t.Errorf("without: %v, cancel %v; want neither", without.SysProcAttr.Pdeathsig, without.Cancel != nil)
	}
}

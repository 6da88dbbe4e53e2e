//go:build unix

package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// noSuchPID is above any pid_max (2^22 at most): kill(2) answers ESRCH.
const noSuchPID = 1 << 30

// fakeTB records a Fatalf and ends the goroutine, as testing.T does.
type fakeTB struct {
	testing.TB
	failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// runFake runs fn with a fakeTB on its own goroutine and returns the
// failure it recorded ("" when none).
func runFake(fn func(tb testing.TB)) string {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f.failed
}

func start(t *testing.T, group bool, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	if group {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// until polls cond; the bound is a hang guard, not a timing assertion.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(Guard); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, Guard)
		}
	}
}

func state(pid int) byte {
	st, ok := stat(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if !ok {
		return 0
	}
	return st.state
}

// A killed child nobody reaped yet is a zombie, and counts as gone; once
// reaped it is absent, and still gone.
func TestGoneCountsZombies(t *testing.T) {
	cmd := start(t, false, "sleep", "1000")
	pid := cmd.Process.Pid
	if Gone(pid) {
		t.Fatal("a running process is Gone")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	WaitGone(t, pid)
	if s := state(pid); s != 'Z' {
		t.Fatalf("state %q after WaitGone; want an unreaped zombie (Z)", s)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("kill(pid, 0) on the zombie: %v; want success (the reason zombies need /proc)", err)
	}
	_ = cmd.Wait()
	if !Gone(pid) || !Gone(noSuchPID) {
		t.Fatal("a reaped or unknown process is not Gone")
	}
}

// GroupLive lists the running members of a group, not other processes and
// not zombies; after the group is killed WaitGroupGone returns even though
// the leader is an unreaped zombie.
func TestGroupLive(t *testing.T) {
	cmd := start(t, true, "sh", "-c", "sleep 1000 & sleep 1000 & wait")
	pgid := cmd.Process.Pid
	until(t, "three members", func() bool { return len(GroupLive(pgid)) == 3 })
	if live := GroupLive(pgid); !slices.Contains(live, pgid) || slices.Contains(live, os.Getpid()) {
		t.Fatalf("GroupLive = %v; want the leader %d and its two children, not this process", live, pgid)
	}
	if live := GroupLive(noSuchPID); live != nil {
		t.Fatalf("GroupLive(unknown group) = %v", live)
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	WaitGroupGone(t, pgid)
	if s := state(pgid); s != 'Z' {
		t.Fatalf("leader state %q; want an unreaped zombie (Z)", s)
	}
}

// A process that survives the guard fails the test and is killed, so a
// failing test leaves nothing running behind it.
func TestWaitGoneKillsSurvivor(t *testing.T) {
	cmd := start(t, false, "sleep", "1000")
	failed := runFake(func(tb testing.TB) { waitGone(tb, time.Millisecond, cmd.Process.Pid) })
	if !strings.Contains(failed, fmt.Sprintf("process %d still runs", cmd.Process.Pid)) {
		t.Fatalf("failure %q; want the survivor named", failed)
	}
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("survivor ended with %v; want SIGKILL from the helper", err)
	}
}

func TestWaitGroupGoneKillsSurvivors(t *testing.T) {
	cmd := start(t, true, "sh", "-c", "sleep 1000 & wait")
	pgid := cmd.Process.Pid
	until(t, "two members", func() bool { return len(GroupLive(pgid)) == 2 })
	failed := runFake(func(tb testing.TB) { waitGroupGone(tb, time.Millisecond, pgid) })
	if !strings.Contains(failed, fmt.Sprintf("process group %d still has live members", pgid)) {
		t.Fatalf("failure %q; want the group named", failed)
	}
	WaitGroupGone(t, pgid) // the helper killed the whole group
	if ws, ok := func() (syscall.WaitStatus, bool) {
		_ = cmd.Wait()
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		return ws, ok
	}(); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("leader ended with %v; want SIGKILL from the helper", cmd.ProcessState)
	}
}

// Without proc(5) a group counts as live while kill(-pgid, 0) succeeds
// (zombies included), and a process that kill(2) finds is not known gone.
func TestWithoutProc(t *testing.T) {
	cmd := start(t, true, "sleep", "1000")
	pid := cmd.Process.Pid
	old := procRoot
	t.Cleanup(func() { procRoot = old })
	procRoot = t.TempDir()
	if live := GroupLive(pid); !slices.Equal(live, []int{-pid}) {
		t.Fatalf("GroupLive without /proc = %v; want [%d]", live, -pid)
	}
	if live := GroupLive(noSuchPID); live != nil {
		t.Fatalf("GroupLive(unknown group) without /proc = %v", live)
	}
	if Gone(pid) {
		t.Fatal("a running process is Gone without /proc")
	}
	// A /proc that works but lacks pid: it was reaped between kill(2) and
	// the read.
	if err := os.MkdirAll(filepath.Join(procRoot, "self"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(procRoot, "self", "stat"), []byte("1 (x) R 0 1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !Gone(pid) {
		t.Fatal("a process missing from a working /proc is not Gone")
	}
}

func TestStat(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, content string
		ok, zombie    bool
		pgrp          int
	}{
		{"plain", "42 (sleep) S 1 42 42 0", true, false, 42},
		{"paren in name", "42 (a) b (c)) R 1 7 7 0", true, false, 7},
		{"zombie", "42 (sh) Z 1 9 9", true, true, 9},
		{"dead", "42 (sh) X 1 9 9", true, true, 9},
		{"dead, old kernels", "42 (sh) x 1 9 9", true, true, 9},
		{"no name", "42 sleep S 1 42", false, false, 0},
		{"too short", "42 (sleep) S 1", false, false, 0},
		{"state not one letter", "42 (sleep) SS 1 42", false, false, 0},
		{"pgrp not a number", "42 (sleep) S 1 x", false, false, 0},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
		if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		st, ok := stat(path)
		if ok != c.ok || (ok && (st.zombie() != c.zombie || st.pgrp != c.pgrp)) {
			t.Errorf("%s: stat = %+v, %v; want ok=%v zombie=%v pgrp=%d", c.name, st, ok, c.ok, c.zombie, c.pgrp)
		}
	}
	if _, ok := stat(filepath.Join(dir, "missing")); ok {
		t.Error("stat of a missing file succeeded")
	}
}

// WithArg finds a shell and its children by a Token in their command
// lines, running ones only: not another token's, not this process, and
// no zombie once they are killed.
func TestWithArg(t *testing.T) {
	tok, other := Token(), Token()
	if tok == other {
		t.Fatalf("Token repeated %s", tok)
	}
	cmd := start(t, true, "sh", "-c", "sleep "+tok+" & sleep "+tok+" & wait")
	start(t, true, "sleep", other)
	until(t, "three processes", func() bool { return len(WithArg(tok)) == 3 })
	if got := WithArg(tok); !slices.Contains(got, cmd.Process.Pid) || slices.Contains(got, os.Getpid()) {
		t.Fatalf("WithArg = %v; want the shell %d and its two sleeps", got, cmd.Process.Pid)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	until(t, "none", func() bool { return len(WithArg(tok)) == 0 })
	if got := WithArg(other); len(got) != 1 {
		t.Fatalf("WithArg(other) = %v; want the one sleep", got)
	}
}

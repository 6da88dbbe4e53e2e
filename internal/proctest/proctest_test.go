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
	var attr *syscall.SysProcAttr
	if group {
		attr = &syscall.SysProcAttr{Setpgid: true}
	}
	return startAttr(t, attr, name, args...)
}

// startAttr starts name with attr (a new group or session: killed whole at
// the cleanup).
func startAttr(t *testing.T, attr *syscall.SysProcAttr, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if attr != nil && attr.Setsid { // a job in a group of its own too
			live, _ := SessionLive(cmd.Process.Pid)
			for _, pid := range live {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
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

// SessionLive lists the running members of a session, in whatever group,
// not other processes and not zombies; once they are killed
// WaitSessionGone returns although the leader is an unreaped zombie.
func TestSessionLive(t *testing.T) {
	bash := needBash(t)
	cmd := startAttr(t, &syscall.SysProcAttr{Setsid: true}, bash, "-c", "sleep 1000 & set -m; sleep 1000 & wait")
	sid := cmd.Process.Pid
	members := func() []int {
		live, ok := SessionLive(sid)
		if !ok {
			t.Fatal("SessionLive: no /proc")
		}
		return live
	}
	until(t, "three members", func() bool { return len(members()) == 3 })
	groups := map[int]bool{}
	for _, pid := range members() {
		st, _ := stat(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
		groups[st.pgrp] = true
	}
	if live := members(); !slices.Contains(live, sid) || slices.Contains(live, os.Getpid()) || len(groups) != 2 {
		t.Fatalf("SessionLive = %v in groups %v; want the leader %d and its two children, one in a group of its own, not this process", live, groups, sid)
	}
	if live, _ := SessionLive(noSuchPID); live != nil {
		t.Fatalf("SessionLive(unknown session) = %v", live)
	}
	for _, pid := range members() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	WaitSessionGone(t, sid)
	if s := state(sid); s != 'Z' {
		t.Fatalf("leader state %q; want an unreaped zombie (Z)", s)
	}
}

// needBash returns bash's path, whose set -m puts a job in a process group
// of its own without a terminal (dash's does not); the test is skipped
// without it.
func needBash(t *testing.T) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash for a job in a group of its own")
	}
	return bash
}

func TestWaitSessionGoneKillsSurvivors(t *testing.T) {
	cmd := startAttr(t, &syscall.SysProcAttr{Setsid: true}, needBash(t), "-c", "set -m; sleep 1000 & wait")
	sid := cmd.Process.Pid
	until(t, "two members", func() bool { live, _ := SessionLive(sid); return len(live) == 2 })
	failed := runFake(func(tb testing.TB) { waitSessionGone(tb, time.Millisecond, sid) })
	if !strings.Contains(failed, fmt.Sprintf("session %d still has live members", sid)) {
		t.Fatalf("failure %q; want the session named", failed)
	}
	WaitSessionGone(t, sid) // the helper killed every member, in both groups
}

// Sessions and groups 0 and 1, and negative numbers, are the machine's:
// never waited for nor killed. (Pure: a broken guard must not make this
// test signal them.)
func TestSystemID(t *testing.T) {
	for id, want := range map[int]bool{-1: true, 0: true, 1: true, 2: false, 4242: false} {
		if got := systemID(id); got != want {
			t.Errorf("systemID(%d) = %t; want %t", id, got, want)
		}
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
	if live, ok := SessionLive(pid); live != nil || ok {
		t.Fatalf("SessionLive without /proc = %v, %t; want nil, false", live, ok)
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
		pgrp, session int
	}{
		{"plain", "42 (sleep) S 1 42 40 0", true, false, 42, 40},
		{"paren in name", "42 (a) b (c)) R 1 7 5 0", true, false, 7, 5},
		{"zombie", "42 (sh) Z 1 9 9", true, true, 9, 9},
		{"dead", "42 (sh) X 1 9 9", true, true, 9, 9},
		{"dead, old kernels", "42 (sh) x 1 9 9", true, true, 9, 9},
		{"no name", "42 sleep S 1 42 42", false, false, 0, 0},
		{"too short", "42 (sleep) S 1", false, false, 0, 0},
		{"no session", "42 (sleep) S 1 42", false, false, 0, 0},
		{"state not one letter", "42 (sleep) SS 1 42 42", false, false, 0, 0},
		{"pgrp not a number", "42 (sleep) S 1 x 42", false, false, 0, 0},
		{"session not a number", "42 (sleep) S 1 42 x", false, false, 0, 0},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
		if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		st, ok := stat(path)
		if ok != c.ok || (ok && (st.zombie() != c.zombie || st.pgrp != c.pgrp || st.session != c.session)) {
			t.Errorf("%s: stat = %+v, %v; want ok=%v zombie=%v pgrp=%d session=%d", c.name, st, ok, c.ok, c.zombie, c.pgrp, c.session)
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

// A token is found as a whole number in a command line, in an argument of
// its own or inside a shell's script, and never inside a longer number:
// not another token's of this binary, not another binary's. (Pure: what
// WithArg matches, KillWithArg kills.)
func TestHoldsNumber(t *testing.T) {
	tok := token(1203, 4)
	for _, c := range []struct {
		cmdline string
		want    bool
	}{
		{"sleep\x00" + tok + "\x00", true},
		{"sh\x00-c\x00sleep " + tok + " & wait\x00", true},
		{"sleep\x00" + tok, true},
		{tok + "\x00", true},
		{"sleep\x00" + tok + "0\x00", false},
		{"sleep\x001" + tok + "\x00", false},
		{"sleep\x00" + token(1203, 40) + "\x00", false},
		{"sleep\x00" + tok + "5 " + tok + "\x00", true},
		{"sleep\x00" + tok[:len(tok)-1] + "\x00", false},
		{"", false},
	} {
		if got := holdsNumber([]byte(c.cmdline), tok); got != c.want {
			t.Errorf("holdsNumber(%q, %s) = %t; want %t", c.cmdline, tok, got, c.want)
		}
	}
	if holdsNumber([]byte("sleep\x00"+tok), "") {
		t.Error("the empty string is found in a command line")
	}
	// Tokens of different processes and counts differ, even where the
	// digits of a pid and a count run into one another.
	seen := map[string][2]int64{}
	for _, pid := range []int{1, 2, 12, 120, 1203, 12030, 4194304} {
		for _, n := range []int64{1, 4, 10, 30, 304, 3040} {
			k := token(pid, n)
			if prev, ok := seen[k]; ok {
				t.Errorf("token(%d, %d) = token(%d, %d) = %s", pid, n, prev[0], prev[1], k)
			}
			seen[k] = [2]int64{int64(pid), n}
		}
	}
}

// NewToken's processes are gone once its test ends; Marked fails a test
// that finds fewer marked processes than it wants.
func TestNewTokenAndMarked(t *testing.T) {
	var tok string
	outer := t
	t.Run("marks", func(t *testing.T) {
		tok = NewToken(t)
		// The outer test reaps the shell after the check below: the
		// subtest's own cleanup is NewToken's alone.
		cmd := exec.Command("sh", "-c", "sleep "+tok+" & sleep "+tok+" & wait")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		outer.Cleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		})
		until(t, "three processes", func() bool { return len(WithArg(tok)) == 3 })
		if got := Marked(t, tok, 3); len(got) != 3 {
			t.Fatalf("Marked = %v; want the shell and its two sleeps", got)
		}
		failed := runFake(func(tb testing.TB) { Marked(tb, tok, 4) })
		if !strings.Contains(failed, "the processes marked "+tok) {
			t.Fatalf("failure %q; want the token named", failed)
		}
	})
	if live := WithArg(tok); len(live) != 0 {
		t.Fatalf("processes marked %s run after their test: %v", tok, live)
	}
}

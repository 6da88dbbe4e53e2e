//go:build unix

package proctest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Guard bounds every wait here. SIGKILL is delivered asynchronously, so a
// killed process takes a moment to die; the bound is only reached when a
// process really survived.
const Guard = 30 * time.Second

// procRoot is where proc(5) is mounted (a variable for the tests of the
// fallbacks).
var procRoot = "/proc"

// Gone reports whether pid no longer runs: kill(pid, 0) fails with ESRCH,
// or /proc shows it as a zombie (or dead).
func Gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	state, ok := stat(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if !ok {
		_, err := os.Stat(filepath.Join(procRoot, "self", "stat"))
		return err == nil // /proc works, and pid is not in it
	}
	return state.zombie()
}

// GroupLive lists the members of process group pgid that still run (not
// zombies). Without /proc it falls back to kill(-pgid, 0), which counts
// zombies as members.
func GroupLive(pgid int) []int {
	live, ok := liveWhere(func(_ string, st procStat) bool { return st.pgrp == pgid })
	if !ok {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return []int{-pgid}
	}
	return live
}

// SessionLive lists the members of session sid that still run (not
// zombies): whatever was started on a terminal whose session leader was
// sid and did not leave the session. Without /proc there is no way to ask
// (kill(2) takes no session): nil, and ok false.
func SessionLive(sid int) (live []int, ok bool) {
	return liveWhere(func(_ string, st procStat) bool { return st.session == sid })
}

// liveWhere lists the running processes of /proc that match (given the
// process's directory and stat); ok is false without /proc.
func liveWhere(match func(dir string, st procStat) bool) (live []int, ok bool) {
	stats, _ := filepath.Glob(filepath.Join(procRoot, "[0-9]*", "stat"))
	if len(stats) == 0 {
		return nil, false
	}
	for _, p := range stats {
		dir := filepath.Dir(p)
		st, ok := stat(p)
		if ok && !st.zombie() && match(dir, st) {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			live = append(live, pid)
		}
	}
	return live, true
}

// WaitGone waits, at most Guard, until every pid is Gone, and fails t
// (killing the survivors) otherwise.
func WaitGone(t testing.TB, pids ...int) {
	t.Helper()
	waitGone(t, Guard, pids...)
}

func waitGone(t testing.TB, guard time.Duration, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for _, pid := range pids {
		for !Gone(pid) {
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("process %d still runs %v later", pid, guard)
			}
			time.Sleep(5 * time.Millisecond) // polling the kernel; not a timing assertion
		}
	}
}

// WaitGroupGone waits, at most Guard, until no member of process group
// pgid runs, and fails t (killing the group) otherwise.
func WaitGroupGone(t testing.TB, pgid int) {
	t.Helper()
	waitGroupGone(t, Guard, pgid)
}

func waitGroupGone(t testing.TB, guard time.Duration, pgid int) {
	t.Helper()
	if systemID(pgid) {
		// kill(-1) would reach every process the test may signal.
		t.Fatalf("process group %d: not a group a test started", pgid)
	}
	waitNoneLive(t, guard, fmt.Sprintf("process group %d", pgid), func() []int { return GroupLive(pgid) },
		func([]int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
}

// WaitSessionGone waits, at most Guard, until no member of session sid
// runs, and fails t (killing the members) otherwise. Without /proc it
// cannot tell, and returns.
func WaitSessionGone(t testing.TB, sid int) {
	t.Helper()
	waitSessionGone(t, Guard, sid)
}

func waitSessionGone(t testing.TB, guard time.Duration, sid int) {
	t.Helper()
	if systemID(sid) {
		// Its members are the machine's: the kernel's threads, init and
		// whatever init started.
		t.Fatalf("session %d: not a session a test started", sid)
	}
	waitNoneLive(t, guard, fmt.Sprintf("session %d", sid), func() []int {
		live, _ := SessionLive(sid)
		return live
	}, func(live []int) {
		for _, pid := range live {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// systemID reports whether id, of a process group or a session, is one
// no test started: 0 (the kernel's, and that of processes started before
// any session, such as the children of an init that made none) or 1
// (init's), or a negative number. A number read from a command confined in
// a PID namespace of its own may be any of them.
func systemID(id int) bool { return id <= 1 }

// waitNoneLive waits, at most guard, until live lists nothing, and
// otherwise kills what it lists and fails t naming what.
func waitNoneLive(t testing.TB, guard time.Duration, what string, live func() []int, kill func(live []int)) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for {
		l := live()
		if len(l) == 0 {
			return
		}
		if time.Now().After(deadline) {
			kill(l)
			t.Fatalf("%s still has live members %v, %v later", what, l, guard)
		}
		time.Sleep(5 * time.Millisecond) // polling the kernel; not a timing assertion
	}
}

type procStat struct {
	state         byte
	pgrp, session int
}

func (s procStat) zombie() bool { return s.state == 'Z' || s.state == 'X' || s.state == 'x' }

// stat reads the state, process group and session of /proc/PID/stat; the
// fields follow the parenthesised command name, which may itself hold ')'.
func stat(path string) (procStat, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:])) // state ppid pgrp session ...
	if len(f) < 4 || len(f[0]) != 1 {
		return procStat{}, false
	}
	pgrp, err := strconv.Atoi(f[2])
	if err != nil {
		return procStat{}, false
	}
	session, err := strconv.Atoi(f[3])
	if err != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], pgrp: pgrp, session: session}, true
}

// tokens numbers Token's answers.
var tokens atomic.Int64

// Token returns a decimal number no other call in this test binary, nor a
// concurrent test binary, returns: put into a command (`sleep TOKEN`, a
// long sleep), it marks the command's processes, which WithArg then finds
// by their command lines. A command confined in a PID namespace of its
// own sees other process numbers than the test does, so what it reports
// of itself (`echo $$`) does not name its processes here.
func Token() string { return token(os.Getpid(), tokens.Add(1)) }

// token is the n-th Token of process pid: 9, the number of pid's digits,
// pid, n. The length makes the split unambiguous (pid 12's 304th is not
// pid 1203's 4th), so that two tokens are equal only for the same pid
// and n.
func token(pid int, n int64) string {
	p := strconv.Itoa(pid)
	return "9" + strconv.Itoa(len(p)) + p + strconv.FormatInt(n, 10)
}

// WithArg lists the processes that still run (not zombies) and one of
// whose command-line arguments holds s as a whole number: not next to
// another digit, so that a Token does not find the processes of a longer
// one (the 1st's 91201 is in the 10th's 912010).
func WithArg(s string) []int {
	live, _ := liveWhere(func(dir string, _ procStat) bool {
		b, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		return err == nil && holdsNumber(b, s)
	})
	return live
}

// holdsNumber reports whether b holds s with no digit just before or
// just after it.
func holdsNumber(b []byte, s string) bool {
	if s == "" {
		return false
	}
	digit := func(i int) bool { return i >= 0 && i < len(b) && b[i] >= '0' && b[i] <= '9' }
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(s))
		if i < 0 {
			return false
		}
		i += off
		if !digit(i-1) && !digit(i+len(s)) {
			return true
		}
		off = i + 1
	}
}

// NewToken returns a Token whose processes are killed (KillWithArg) when
// t and its subtests end: a test that fails halfway leaves none running.
func NewToken(t testing.TB) string {
	tok := Token()
	t.Cleanup(func() { KillWithArg(tok) })
	return tok
}

// Marked lists the running processes marked with tok (WithArg), and fails
// t when they are fewer than least: the processes of a command (its shell
// and its background child) that a test is about to end.
func Marked(t testing.TB, tok string, least int) []int {
	t.Helper()
	pids := WithArg(tok)
	if len(pids) < least {
		t.Fatalf("the processes marked %s: %v; want %d at least", tok, pids, least)
	}
	return pids
}

// KillWithArg sends SIGKILL to every process WithArg(s) lists: a test's
// cleanup for the processes it marked with a Token.
func KillWithArg(s string) {
	for _, pid := range WithArg(s) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

//go:build unix

package proctest

import (
	"errors"
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
	stats, _ := filepath.Glob(filepath.Join(procRoot, "[0-9]*", "stat"))
	if len(stats) == 0 {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return []int{-pgid}
	}
	var live []int
	for _, p := range stats {
		st, ok := stat(p)
		if ok && st.pgrp == pgid && !st.zombie() {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			live = append(live, pid)
		}
	}
	return live
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
	if pgid <= 1 {
		// kill(-1) would reach every process the test may signal.
		t.Fatalf("process group %d: not a group a test started", pgid)
	}
	deadline := time.Now().Add(guard)
	for {
		live := GroupLive(pgid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatalf("process group %d still has live members %v, %v later", pgid, live, guard)
		}
		time.Sleep(5 * time.Millisecond) // polling the kernel; not a timing assertion
	}
}

type procStat struct {
	state byte
	pgrp  int
}

func (s procStat) zombie() bool { return s.state == 'Z' || s.state == 'X' || s.state == 'x' }

// stat reads the state and process group of /proc/PID/stat; the fields
// follow the parenthesised command name, which may itself hold ')'.
func stat(path string) (procStat, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:])) // state ppid pgrp ...
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	pgrp, err := strconv.Atoi(f[2])
	if err != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], pgrp: pgrp}, true
}

// tokens numbers Token's answers.
var tokens atomic.Int64

// Token returns a decimal number no other call in this test binary, nor a
// concurrent test binary, returns: put into a command (`sleep TOKEN`, a
// long sleep), it marks the command's processes, which WithArg then finds
// by their command lines. A command confined in a PID namespace of its
// own sees other process numbers than the test does, so what it reports
// of itself (`echo $$`) does not name its processes here.
func Token() string {
	return "9" + strconv.Itoa(os.Getpid()) + "0" + strconv.FormatInt(tokens.Add(1), 10)
}

// WithArg lists the processes that still run (not zombies) and one of
// whose command-line arguments contains s.
func WithArg(s string) []int {
	stats, _ := filepath.Glob(filepath.Join(procRoot, "[0-9]*", "stat"))
	var live []int
	for _, p := range stats {
		dir := filepath.Dir(p)
		b, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		if st, ok := stat(p); ok && !st.zombie() {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			live = append(live, pid)
		}
	}
	return live
}

// KillWithArg sends SIGKILL to every process WithArg(s) lists: a test's
// cleanup for the processes it marked with a Token.
func KillWithArg(s string) {
	for _, pid := range WithArg(s) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The supervisor. A confined command is not started by the agent
// directly: the agent starts the supervisor (SupervisorArg), which starts
// the launcher (LauncherArg) as its child, in a session of its own (and,
// by the policy's Mounts, in its namespaces), and stays as its parent, a
// child subreaper (PR_SET_CHILD_SUBREAPER). The launcher confines itself
// and execs the command. A process the command starts and that leaves its
// process group (setsid, a daemon's double fork) is orphaned when its
// parent ends, and the kernel gives it to the nearest subreaper among its
// ancestors: the supervisor, not init. When the command ends, the
// supervisor kills its group and then every process it was given, until
// it has no child left, and ends as the command did (its exit status, or
// killed by the same signal). So nothing a confined command starts
// outlives it, and the numbers the command sees ($$, $!, /proc) are the
// host's.
//
// The supervisor itself is not confined: it runs nothing but the
// launcher, and, outside the command's Landlock domain, it is out of the
// command's reach (from Landlock ABI 6 the command cannot signal it, and
// it is not dumpable: no ptrace, no /proc/$PPID/environ). The agent stops
// a confined command by sending it stopSignal (Wrap sets cmd.Cancel), and
// it then ends everything as above; a group kill would end the supervisor
// (alone in its group) before it could.

// stopSignal asks the supervisor to end its command and everything the
// command started.
const stopSignal = syscall.SIGTERM

// endGrace bounds how long the supervisor waits for the processes it
// killed to die (a process in an uninterruptible sleep dies only when it
// leaves it); after it, the supervisor ends anyway: they already have
// SIGKILL.
const endGrace = 5 * time.Second

// supervise starts the launcher with args (the policy, then the command)
// as described above and ends this process as the command ended. It
// returns only when the launcher cannot start, with the exit status.
func supervise(args []string, stderr io.Writer) int {
	var p Policy
	if len(args) < 2 || json.Unmarshal([]byte(args[0]), &p) != nil {
		fmt.Fprintln(stderr, "magi-code sandbox: bad policy")
		return LauncherFailed
	}
	self, err := Self()
	if err != nil {
		fmt.Fprintln(stderr, "magi-code sandbox: cannot find the launcher")
		return LauncherFailed
	}
	// Not dumpable: the command, were it to escape Landlock's ptrace
	// scope, still could not read this process.
	if unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != nil || NotDumpable() != nil {
		fmt.Fprintln(stderr, "magi-code sandbox: cannot supervise the command")
		return LauncherFailed
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, stopSignal, syscall.SIGINT, syscall.SIGHUP)
	// Pdeathsig: a supervisor killed outright (the agent's last resort)
	// takes the command with it.
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	nsAttr(attr, p.Mounts)
	pid, err := syscall.ForkExec(self, append([]string{self, LauncherArg}, args...), &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys:   attr,
	})
	if err != nil {
		fmt.Fprintln(stderr, "magi-code sandbox: cannot start the launcher")
		return LauncherFailed
	}
	go func() {
		<-stop
		_ = unix.Kill(-pid, unix.SIGKILL)
	}()
	status := waitFor(pid)
	endAll(pid)
	endAs(status)
	return LauncherFailed
}

// waitFor waits for the command pid, reaping the orphans given to the
// supervisor that end meanwhile, and returns its status.
func waitFor(pid int) unix.WaitStatus {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case err == unix.EINTR:
		case err != nil:
			// No child at all: the command is gone, unaccounted.
			return unix.WaitStatus(0x100 * LauncherFailed)
		case got == pid && (ws.Exited() || ws.Signaled()):
			return ws
		}
	}
}

// endAll kills the command's process group, then every child of the
// supervisor (the orphans it was given), again and again, reaping them,
// until it has none (or endGrace has passed): a killed process's own
// children come to the supervisor in turn.
func endAll(pgid int) {
	_ = unix.Kill(-pgid, unix.SIGKILL)
	deadline := time.Now().Add(endGrace)
	for {
		got, err := unix.Wait4(-1, nil, unix.WNOHANG, nil)
		switch {
		case err == unix.ECHILD:
			return // mostly at once: no list to read then
		case err == unix.EINTR || got > 0:
			continue // one reaped: look again
		case time.Now().After(deadline):
			return
		}
		for _, pid := range children() {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		// Killed, not dead yet: polling the kernel, not a timing choice.
		time.Sleep(time.Millisecond)
	}
}

// children lists the supervisor's children: from the kernel's list of each
// of its threads, or, where the kernel has none
// (CONFIG_PROC_CHILDREN), from every process's parent in /proc.
func children() []int {
	var pids []int
	lists, _ := filepath.Glob("/proc/self/task/*/children")
	for _, l := range lists {
		b, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		for f := range strings.FieldsSeq(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 1 {
				pids = append(pids, pid)
			}
		}
	}
	if len(lists) > 0 {
		return pids
	}
	self := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		b, err := os.ReadFile(s)
		i := strings.LastIndexByte(string(b), ')')
		if err != nil || i < 0 {
			continue
		}
		// The fields after the parenthesised name: state, then the parent.
		if f := strings.Fields(string(b[i+1:])); len(f) > 1 && f[1] == self {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(s))); err == nil && pid > 1 {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// endAs ends the supervisor as the command ended: with its exit status, or
// killed by the signal that killed it (its default action restored and
// unblocked first: the Go runtime handles most signals, and would print
// a trace for some).
func endAs(ws unix.WaitStatus) {
	if ws.Signaled() {
		sig := ws.Signal()
		signal.Reset()
		// struct sigaction: handler (SIG_DFL), flags, restorer, mask.
		var act [4]uint64
		_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act[0])), 0, 8, 0, 0)
		var set unix.Sigset_t
		set.Val[(int(sig)-1)/64] |= 1 << ((uint(sig) - 1) % 64)
		_ = unix.PthreadSigmask(unix.SIG_UNBLOCK, &set, nil)
		_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
		os.Exit(128 + int(sig)) // a signal whose default is to go on
	}
	os.Exit(ws.ExitStatus())
}

// stopOnCancel makes the cancellation of cmd, when it has one (a command
// with a context: exec.CommandContext), ask the supervisor to end the
// command and everything it started (stopSignal), instead of the caller's
// own cancellation (a kill of the supervisor's group, which holds only the
// supervisor). Should the supervisor not end, cmd.WaitDelay still kills
// it, and the command with it (Pdeathsig).
//
// Likewise the parent-death signal the caller asked for (runner/subproc:
// the kernel sends it when the agent dies without its cleanup) becomes
// stopSignal: the supervisor then ends the command and all it started,
// where SIGKILL would have ended the supervisor alone, leaving the
// command's group and orphans running.
func stopOnCancel(cmd *exec.Cmd) {
	if cmd.Cancel != nil {
		cmd.Cancel = func() error { return cmd.Process.Signal(stopSignal) }
	}
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Pdeathsig != 0 {
		cmd.SysProcAttr.Pdeathsig = stopSignal
	}
}

package sandbox

import (
	"fmt"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// minABI is the oldest Landlock ABI we call a sandbox: ABI 3 (Linux 6.2)
// adds truncation; before it, a confined command could still truncate any
// file it can open.
const minABI = 3

// Probe reports whether Landlock is usable here. It makes one system call.
func Probe() Status {
	abi, err := llsyscall.LandlockGetABIVersion()
	switch {
	case err != nil:
		return Status{Reason: "the kernel offers no Landlock"}
	case abi < minABI:
		return Status{ABI: abi, Reason: "Landlock ABI " + itoa(abi) + " cannot restrict truncation (ABI 3 needed)"}
	}
	return Status{Available: true, ABI: abi}
}

// devices are files every command writes to as a matter of course.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}

// restrict confines this process (every thread) under p: read and execute
// everywhere, write below p.Writable, TCP only if p.Network. It refuses to
// go on unconfined: an ABI below minABI is an error.
func restrict(p Policy) error {
	if st := Probe(); !st.Available {
		return fmt.Errorf("%s", st.Reason)
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(devices...).WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts", "/dev/shm").WithIoctlDev().IgnoreIfMissing(),
	}
	if len(p.Writable) > 0 {
		// WithRefer: a file may be renamed or linked from one directory to
		// another within the writable ones (rustc, git and Python's
		// os.replace do; without it they fail with EXDEV). A file outside
		// them still cannot be linked or moved in: its directory does not
		// grant refer.
		rules = append(rules, landlock.RWDirs(p.Writable...).WithRefer().IgnoreIfMissing())
	}
	// V6: files (truncate included) and ioctl on devices, TCP, and the IPC
	// scopes: no signal to a process outside the sandbox (the person's
	// editor, the child that started the command) and no connection to an
	// abstract UNIX socket served from outside it. Best effort only
	// downgrades within what Probe checked (ABI >= 3): on ABI 3 the network
	// stays open, before ABI 6 signals and abstract sockets do, which
	// Probe's callers document.
	cfg := landlock.V6.BestEffort()
	if p.Network {
		cfg.HandledAccessNet = 0
	}
	return cfg.Restrict(rules...)
}

func execve(path string, argv, env []string) error { return syscall.Exec(path, argv, env) }

// newSession makes cmd start as the leader of a new session (and so of a
// new process group), with no controlling terminal. Setpgid is cleared: a
// session leader cannot change its group, so both would fail the start.
func newSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setpgid = false
}

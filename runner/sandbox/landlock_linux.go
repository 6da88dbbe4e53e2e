package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// minABI is the oldest Landlock ABI we call a sandbox: ABI 3 (Linux 6.2)
// adds truncation; before it, a confined command could still truncate any
// file it can open.
const minABI = 3

// Probe reports whether Landlock is usable here, and whether the network
// can be closed. It makes one system call.
func Probe() Status {
	st := probe(llsyscall.LandlockGetABIVersion)
	st.NetworkClosable = NetworkClosable()
	return st
}

// probe is the ABI gate, given the call that reads the kernel's ABI.
func probe(abiVersion func() (int, error)) Status {
	abi, err := abiVersion()
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
// everywhere but below p.Unreadable, write below p.Writable, sockets only if p.Network (the
// network filter, and Landlock's TCP rules where the ABI has them). It
// refuses to go on unconfined: an ABI below minABI is an error, and so is
// a network it cannot close.
func restrict(p Policy) error {
	if st := Probe(); !st.Available {
		return fmt.Errorf("%s", st.Reason)
	}
	// A writable directory grants reading too: one that holds an
	// unreadable path (a workspace that is the home, MC_HOME under /tmp)
	// is carved around it like around a protected path, or everything
	// below it could be read.
	dirs, files := grants(p.Writable, append(slices.Clone(p.Protected), p.Unreadable...))
	// Read and execute everywhere, or, with paths that must not be read
	// (MC_HOME), everywhere around them: directories may still be listed
	// everywhere (ReadDir on /), files read only through the grants.
	// /dev is unreadable but for the devices granted below: the others
	// carry what other processes and the person read and type (the
	// person's terminals in the host's /dev/pts, the console and virtual
	// terminals, which a confined root opens), or the machine itself.
	rules := []landlock.Rule{landlock.RODirs("/")}
	if rdirs, rfiles, ok := readGrants(append(slices.Clone(p.Unreadable), "/dev")); ok {
		rules = []landlock.Rule{
			landlock.PathAccess(llsyscall.AccessFSReadDir, "/"),
			landlock.RODirs(rdirs...).IgnoreIfMissing(),
			landlock.ROFiles(rfiles...).IgnoreIfMissing(),
		}
	}
	rules = append(rules,
		landlock.RWFiles(devices...).WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/shm").WithIoctlDev().IgnoreIfMissing(),
	)
	if p.ownPTYs {
		// The command's own terminals (script, expect, Python's pty):
		// only where /dev/pts holds nothing else (privatePTYs).
		rules = append(rules, landlock.RWDirs("/dev/pts").WithIoctlDev().IgnoreIfMissing())
	}
	if len(files) > 0 {
		rules = append(rules, landlock.RWFiles(files...).IgnoreIfMissing())
	}
	if len(dirs) > 0 {
		// WithRefer: a file may be renamed or linked from one directory to
		// another within the writable ones (rustc, git and Python's
		// os.replace do; without it they fail with EXDEV). A file outside
		// them still cannot be linked or moved in: its directory does not
		// grant refer.
		rules = append(rules, landlock.RWDirs(dirs...).WithRefer().IgnoreIfMissing())
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
	if err := cfg.Restrict(rules...); err != nil {
		return err
	}
	if p.Network {
		// The keyring stays closed (netfilter_linux.go) where the filter
		// is written for the architecture.
		if !NetworkClosable() {
			return nil
		}
		if err := closeNetwork(true); err != nil {
			return fmt.Errorf("cannot close the keyring: %w", err)
		}
		return nil
	}
	// The network filter closes every socket on every ABI (netfilter_linux.go).
	if err := closeNetwork(false); err != nil {
		return fmt.Errorf("cannot close the network: %w", err)
	}
	return nil
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

// dropPrivileges makes this thread, and the program it execs, hold no
// capability and gain none: it sets no_new_privs (no setuid or file
// capability takes effect at exec), empties the bounding and ambient sets
// (so that root's exec does not get every capability back) and then the
// effective, permitted and inheritable ones. A confined root then cannot
// read what the caps would let it (CAP_SYS_PTRACE: another process's
// environment and memory; CAP_DAC_READ_SEARCH, CAP_DAC_OVERRIDE,
// CAP_FOWNER, CAP_CHOWN, CAP_SETUID: other users' files), nor make device
// nodes (CAP_MKNOD), load modules, or change the system. Capabilities are
// per thread: the caller locks its OS thread and execs from it.
// Dropping from the bounding set needs CAP_SETPCAP; a process without it
// holds no capability to drop (its empty sets stay empty under
// no_new_privs), so EPERM there is not a failure.
func dropPrivileges() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	for c := 0; c < 64; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if err == unix.EINVAL {
			break // past the kernel's last capability
		}
		if err != nil && err != unix.EPERM {
			return fmt.Errorf("capability bounding set: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capabilities: %w", err)
	}
	return nil
}

// lockThread keeps the launcher on one OS thread from dropping its
// privileges to exec: capabilities belong to a thread.
func lockThread() { runtime.LockOSThread() }

// NotDumpable makes this process non-dumpable (PR_SET_DUMPABLE 0): its
// /proc entries (environ, mem, maps, fd...) then belong to root and other
// processes need CAP_SYS_PTRACE to read them, even processes of the same
// user, and it writes no core dump. The agent calls it first thing: its
// environment holds provider keys, its memory credentials. Its own access
// to /proc/self is unchanged, and the programs it execs are dumpable again
// (exec resets the flag).
func NotDumpable() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }

package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// The launcher runs from this package's init, before main or TestMain:
// every binary that links this package, and so can start a sandboxed
// command with itself as the launcher, handles LauncherArg, test binaries
// of any package included. A binary that did not would run itself (the
// CLI, or its whole test suite) as each sandboxed command, and every copy
// would start more.
func init() { Main() }

// Main runs the supervisor when os.Args[1] is SupervisorArg, the launcher
// when it is LauncherArg (or the mount probe), and never returns then;
// otherwise it returns at once. This package's init calls it.
func Main() {
	switch {
	case len(os.Args) < 2:
	case os.Args[1] == SupervisorArg:
		os.Exit(supervise(os.Args[2:], os.Stderr))
	case os.Args[1] == LauncherArg:
		os.Exit(launch(os.Args[2:], os.Stderr))
	case os.Args[1] == MountProbeArg:
		os.Exit(mountProbe(os.Args[2:]))
	}
}

// launch restricts this process under the policy args[0] and execs args[1:].
// It returns only on failure, with the exit status; the command has not run.
func launch(args []string, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprintln(stderr, "magi-code sandbox: no command")
		return LauncherFailed
	}
	var p Policy
	if err := json.Unmarshal([]byte(args[0]), &p); err != nil {
		fmt.Fprintln(stderr, "magi-code sandbox: bad policy")
		return LauncherFailed
	}
	// Mounts first, while the launcher may still make them (in a mount
	// namespace of its own only); then privileges: Landlock then restricts
	// a process that can no longer lift anything it sets, nor mount.
	lockThread()
	// Where the ids cannot be mapped or the mounts made private, none is
	// made: the grants then carve as without a namespace.
	if p.Mounts != "" && p.HostNS != 0 && mountNS() != p.HostNS && enterNamespace(p.Mounts, p.UID, p.GID) == nil {
		p.Protected = mountProtected(p.Writable, p.Protected, bindReadOnly)
		p.ownPTYs = privatePTYs() == nil
	}
	if err := dropPrivileges(); err != nil {
		fmt.Fprintln(stderr, "magi-code sandbox: cannot drop privileges:", err)
		return LauncherFailed
	}
	if err := restrict(p); err != nil {
		fmt.Fprintln(stderr, "magi-code sandbox: cannot confine the command:", err)
		return LauncherFailed
	}
	err := execve(args[1], args[1:], os.Environ())
	fmt.Fprintln(stderr, "magi-code sandbox: cannot run the command:", err)
	return LauncherFailed
}

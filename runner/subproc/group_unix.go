//go:build unix

package subproc

import (
	"os/exec"
	"syscall"
)

// OwnGroup makes cmd's process the leader of a new process group, so that
// KillGroup reaches every process it starts, and (on Linux) has the kernel
// kill it when magi-code dies without its cleanup (parentDeath). Call it
// before cmd.Start.
func OwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	parentDeath(cmd.SysProcAttr)
}

// kill is syscall.Kill; the tests of what KillGroup must never signal
// replace it.
var kill = syscall.Kill

// KillGroup sends SIGKILL to the process group led by pgid. A group that is
// already gone is not an error; a pgid below 2 is ignored: 0 (no process
// was started) is never taken as "our own group", nor 1 as "every process
// we may signal", which is what kill(-1) means, and no group of ours is
// led by init.
func KillGroup(pgid int) error {
	if pgid <= 1 {
		return nil
	}
	if err := kill(-pgid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}

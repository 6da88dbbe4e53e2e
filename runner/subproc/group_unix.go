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

// KillGroup sends SIGKILL to the process group led by pgid. A group that is
// already gone is not an error; a pgid below 1 (no process was started) is
// ignored, never taken as "our own group".
func KillGroup(pgid int) error {
	if pgid <= 0 {
		return nil
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return err
	}
	return nil
}

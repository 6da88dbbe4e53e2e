//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup makes cmd's process the leader of a new process group, so
// that cleanup reaches every process it starts.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to the process group led by pid. A group that is
// already gone is not an error.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

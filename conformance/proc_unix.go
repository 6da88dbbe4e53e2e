//go:build unix

package conformance

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the server in its own process group, so that
// killProcessGroup reaches what it started.
func setProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killProcessGroup sends SIGKILL to the server's process group.
func killProcessGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

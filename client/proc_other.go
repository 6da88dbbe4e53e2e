//go:build !unix

package client

import "os/exec"

// setProcessGroup is a no-op where serve is not supported.
func setProcessGroup(*exec.Cmd) {}

// killProcess kills the child.
func killProcess(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

//go:build !unix

package mcp

import (
	"os"
	"os/exec"
)

// ownProcessGroup is a no-op where process groups do not exist; cleanup then
// reaches only the server process itself.
func ownProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the process pid only.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

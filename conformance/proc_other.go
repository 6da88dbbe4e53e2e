//go:build !unix

package conformance

import "os/exec"

// setProcessGroup: no process groups here; the kit still builds, for the
// CLI that embeds it.
func setProcessGroup(*exec.Cmd) {}

// killProcessGroup kills the server process.
func killProcessGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

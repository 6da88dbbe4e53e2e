//go:build !windows

package subproc

import (
	"context"
	"os/exec"
)

// ShellName is how the tool description names the shell that runs a
// command.
const ShellName = "/bin/sh -c"

// Shell returns the command that runs command with /bin/sh -c, bound to
// ctx. The caller sets its directory, environment and streams, and calls
// OwnGroup, as for any subprocess.
func Shell(ctx context.Context, command string) *exec.Cmd {
	return exec.CommandContext(ctx, "/bin/sh", "-c", command)
}

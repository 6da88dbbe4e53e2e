//go:build windows

package subproc

import (
	"context"
	"os/exec"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/windows"
)

// ShellName is how the tool description names the shell that runs a
// command.
const ShellName = "cmd.exe /c (Windows)"

// Shell returns the command that runs command with the system's cmd.exe
// (found in the system directory, never through PATH or %ComSpec%), bound
// to ctx. A command that cmd.exe would only half run (ErrMultiLine) is
// returned with Err set, so that Start fails with it and nothing runs.
func Shell(ctx context.Context, command string) *exec.Cmd {
	dir, err := windows.GetSystemDirectory()
	exe := filepath.Join(dir, "cmd.exe")
	cmd := exec.CommandContext(ctx, exe)
	if err != nil {
		cmd.Err = err
		return cmd
	}
	line, err := cmdExeLine(exe, command)
	if err != nil {
		cmd.Err = err
		return cmd
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: line}
	return cmd
}

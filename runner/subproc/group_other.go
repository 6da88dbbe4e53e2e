//go:build !unix

package subproc

import (
	"errors"
	"os"
	"os/exec"
)

// OwnGroup does nothing where process groups do not exist: cleanup then
// reaches only the process itself.
func OwnGroup(cmd *exec.Cmd) {}

// KillGroup kills the process pgid only. A process that is already gone is
// not an error; a pgid below 1 is ignored.
func KillGroup(pgid int) error {
	if pgid <= 0 {
		return nil
	}
	p, err := os.FindProcess(pgid)
	if err != nil {
		return nil
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

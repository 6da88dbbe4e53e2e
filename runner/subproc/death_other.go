//go:build unix && !linux

package subproc

import "syscall"

// parentDeath: no such request on this system; KillGroup at cleanup is
// what ends the children.
func parentDeath(*syscall.SysProcAttr) {}

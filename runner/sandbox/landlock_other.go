//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
	"runtime"
)

// Probe reports that no OS sandbox is offered on this system.
func Probe() Status { return Status{Reason: "no Landlock on " + runtime.GOOS} }

// NetworkClosable reports false: no launcher here.
func NetworkClosable() bool { return false }

func restrict(Policy) error { return errors.New("no Landlock on " + runtime.GOOS) }

func execve(string, []string, []string) error { return errors.New("unsupported") }

func newSession(*exec.Cmd) {}

func dropPrivileges() error { return errors.New("unsupported") }

func lockThread() {}

// NotDumpable does nothing here: no PR_SET_DUMPABLE outside Linux.
func NotDumpable() error { return nil }

//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime"
)

// Probe reports that no OS sandbox is offered on this system.
func Probe() Status { return Status{Reason: "no Landlock on " + runtime.GOOS} }

// NetworkClosable reports false: no launcher here.
func NetworkClosable() bool { return false }

func restrict(Policy) error { return errors.New("no Landlock on " + runtime.GOOS) }

func execve(string, []string, []string) error { return errors.New("unsupported") }

func supervise(_ []string, stderr io.Writer) int {
	fmt.Fprintln(stderr, "magi-code sandbox: no supervisor on "+runtime.GOOS)
	return LauncherFailed
}

func stopOnCancel(*exec.Cmd) {}

func newSession(*exec.Cmd) {}

func dropPrivileges() error { return errors.New("unsupported") }

func lockThread() {}

// NotDumpable does nothing here: no PR_SET_DUMPABLE outside Linux.
func NotDumpable() error { return nil }

func mountNS() uint64 { return 0 }

func enterNamespace(string, int, int) error { return errors.New("unsupported") }

func mountProtected(_, protected []string, _ func(string) error) []string { return protected }

func bindReadOnly(string) error { return errors.New("unsupported") }

func privatePTYs() error { return errors.New("unsupported") }

func mountProbe([]string) int { return 1 }

// ProbeMounts reports no mount namespace here.
func ProbeMounts(string) string { return "" }

// idOf is p's identity where the platform has one (os.SameFile's data is
// not comparable): none here, so a cached walk is always current.
func idOf(string) fileID { return fileID{1, 1} }

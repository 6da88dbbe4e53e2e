//go:build unix

package subproc

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestKeepFromChildren: a descriptor this process holds without
// close-on-exec (as a parent leaves one) is marked, and a child started
// afterwards does not have it, while one given explicitly (ExtraFiles) it
// does; stdin, stdout and stderr are left alone, and a second call marks
// nothing.
func TestKeepFromChildren(t *testing.T) {
	path := t.TempDir() + "/leak"
	opened, err := syscall.Open(path, syscall.O_CREAT|syscall.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(opened)
	// A high number no child's own opens reach; dup2 leaves it without
	// close-on-exec, as a parent's leaked descriptor is.
	const fd = 100
	if err := unix.Dup2(opened, fd); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC != 0 {
		t.Fatal("the test's descriptor is already close-on-exec")
	}
	before := map[int]int{}
	for _, std := range []int{0, 1, 2} {
		before[std], _ = unix.FcntlInt(uintptr(std), unix.F_GETFD, 0)
	}
	if n := KeepFromChildren(); n < 1 {
		t.Errorf("KeepFromChildren marked %d descriptors", n)
	}
	if flags, _ := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); flags&unix.FD_CLOEXEC == 0 {
		t.Error("the inherited descriptor is not close-on-exec")
	}
	for std, flags := range before {
		if got, _ := unix.FcntlInt(uintptr(std), unix.F_GETFD, 0); got != flags {
			t.Errorf("descriptor %d: flags %d, were %d", std, got, flags)
		}
	}
	if n := KeepFromChildren(); n != 0 {
		t.Errorf("a second call marked %d", n)
	}
	given, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer given.Close()
	cmd := exec.Command("/bin/sh", "-c", "ls "+fdDir)
	cmd.ExtraFiles = []*os.File{given} // fd 3 in the child
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(string(out))
	if slices.Contains(names, strconv.Itoa(fd)) {
		t.Errorf("the child has the inherited descriptor %d: %q", fd, names)
	}
	if !slices.Contains(names, "3") {
		t.Errorf("the child lacks the descriptor given to it: %q", names)
	}
}

//go:build linux

package writer

import "golang.org/x/sys/unix"

// dupOnto makes newFD refer to oldFD's open file (dup3: linux/arm64 has no dup2).
func dupOnto(oldFD, newFD int) error { return unix.Dup3(oldFD, newFD, 0) }

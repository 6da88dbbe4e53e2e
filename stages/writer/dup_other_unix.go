//go:build unix && !linux

package writer

import "golang.org/x/sys/unix"

// dupOnto makes newFD refer to oldFD's open file.
func dupOnto(oldFD, newFD int) error { return unix.Dup2(oldFD, newFD) }

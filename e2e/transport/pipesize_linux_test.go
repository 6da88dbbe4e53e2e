//go:build linux

package transport

import (
	"testing"

	"golang.org/x/sys/unix"
)

// shrinkStdout sets the child's output pipe back to 64 KiB, the size every
// pipe starts with: the child asks for 1 MiB when it starts (README,
// Architecture), more than a reader stalled before initialize can make it
// say within its 4,096 request IDs. Call it once the child answered.
func (ch *rawChild) shrinkStdout(t *testing.T) {
	t.Helper()
	if _, err := unix.FcntlInt(ch.stdout.Fd(), unix.F_SETPIPE_SZ, 64<<10); err != nil {
		t.Fatalf("F_SETPIPE_SZ: %v", err)
	}
}

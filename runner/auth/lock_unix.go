//go:build unix

package auth

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockPoll is how often a contended lock is retried. flock(2) cannot be
// interrupted by ctx, so the lock is taken without blocking and retried.
const lockPoll = 10 * time.Millisecond

// lockFile takes an exclusive flock on path (created 0600), retrying until
// it is free or ctx ends. The lock file is separate from auth.json because
// auth.json is replaced by rename, which would orphan a lock held on it.
// The returned function releases the lock.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() {
				unix.Flock(fd, unix.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, err
		}
		t := time.NewTimer(lockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

package filelock

import (
	"context"
	"errors"
	"os"
	"time"
)

// ErrUnsupported is TryLock's answer where this OS offers no file lock.
var ErrUnsupported = errors.New("filelock: no file locking on this OS")

// Poll is how often Lock retries a contended lock. Neither flock(2) nor
// LockFileEx can be interrupted by a context, so Lock tries without
// blocking and retries.
const Poll = 10 * time.Millisecond

// TryLock takes an exclusive lock on f without waiting. It reports false
// with a nil error when another open file holds the lock.
func TryLock(f *os.File) (bool, error) { return tryLock(f) }

// Lock opens path (created with mode 0600) and takes an exclusive lock on
// it, retrying every Poll until it is free or ctx ends. The returned
// function drops the lock and closes the file.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := wait(ctx, f, tryLock, Poll); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// wait calls try until it locks f, fails, or ctx ends, sleeping every
// between attempts. ctx is checked before each attempt.
func wait(ctx context.Context, f *os.File, try func(*os.File) (bool, error), every time.Duration) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ok, err := try(f)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

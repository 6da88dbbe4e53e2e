package auth

import (
	"context"

	"github.com/magi-code/magi-code/internal/filelock"
)

// lockFile takes an exclusive lock on path (created 0600), retrying until
// it is free or ctx ends (flock on Unix, LockFileEx on Windows). The lock
// file is separate from auth.json because auth.json is replaced by rename,
// which would orphan a lock held on it. The returned function releases the
// lock.
func lockFile(ctx context.Context, path string) (func(), error) {
	return filelock.Lock(ctx, path)
}

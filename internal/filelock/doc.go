// Package filelock is the one place where a file is locked across
// processes: the credential store's lock (runner/auth), the session leases
// (history) and the test tools' install lock (internal/everything).
//
// A lock is exclusive and belongs to the open file (flock(2) on Unix,
// LockFileEx on Windows): a second open of the same path conflicts with the
// first whether it lives in another process or in this one, and closing the
// file drops the lock. Only TryLock is OS-specific; the waiting (Lock) is
// shared and is tested on Linux.
//
// On an OS with neither (not Unix, not Windows) TryLock answers
// ErrUnsupported: nothing pretends to lock.
package filelock

// Package filelock is the one place where the product locks a file across
// processes: the credential store's lock (runner/auth) and the session
// leases (history). (The test helper internal/everything keeps its own
// flock: test helpers import nothing of ours.)
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

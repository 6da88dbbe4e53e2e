package filelock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// guard bounds every wait of these tests.
const guard = 10 * time.Second

func TestTryLockConflictsAcrossOpensAndCloseReleases(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	a, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if ok, err := TryLock(a); !ok || err != nil {
		t.Fatalf("first TryLock = %v, %v; want locked", ok, err)
	}
	if ok, err := TryLock(b); ok || err != nil {
		t.Fatalf("TryLock through a second open of a locked file = %v, %v; want false, nil", ok, err)
	}
	a.Close()
	if ok, err := TryLock(b); !ok || err != nil {
		t.Fatalf("TryLock after the holder closed = %v, %v; want locked", ok, err)
	}
}

func TestTryLockClosedFileIsAnError(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "x.lock"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if ok, err := TryLock(f); ok || err == nil {
		t.Fatalf("TryLock(closed) = %v, %v; want an error", ok, err)
	}
}

func TestLockWaitsForTheHolderAndCreatesPrivateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auth.json.lock")
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	unlock, err := Lock(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// Windows has no Unix mode bits to check.
	if fi, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Fatalf("lock file: %v, %v; want mode 0600", fi, err)
	}
	// Contended: a short context ends the wait.
	short, cancelShort := context.WithTimeout(ctx, 5*Poll)
	_, err = Lock(short, path)
	cancelShort()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock while held = %v; want context.DeadlineExceeded", err)
	}
	got := make(chan error, 1)
	go func() {
		u, err := Lock(ctx, path)
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("Lock after release = %v", err)
		}
	case <-time.After(guard):
		t.Fatal("Lock did not return after the holder released the lock")
	}
}

func TestWaitRetriesUntilLockedAndStopsOnErrorOrContext(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "x"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()

	calls := 0
	busyTwice := func(*os.File) (bool, error) { calls++; return calls > 2, nil }
	if err := wait(ctx, f, busyTwice, time.Microsecond); err != nil || calls != 3 {
		t.Fatalf("wait = %v after %d tries; want nil after 3", err, calls)
	}

	boom := errors.New("boom")
	calls = 0
	failing := func(*os.File) (bool, error) { calls++; return false, boom }
	if err := wait(ctx, f, failing, time.Microsecond); !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("wait = %v after %d tries; want boom after 1", err, calls)
	}

	done, stop := context.WithCancel(ctx)
	calls = 0
	never := func(*os.File) (bool, error) {
		calls++
		if calls == 2 {
			stop()
		}
		return false, nil
	}
	if err := wait(done, f, never, time.Microsecond); !errors.Is(err, context.Canceled) || calls != 2 {
		t.Fatalf("wait = %v after %d tries; want context.Canceled after 2", err, calls)
	}
	calls = 0
	if err := wait(done, f, never, time.Microsecond); !errors.Is(err, context.Canceled) || calls != 0 {
		t.Fatalf("wait on a done context = %v after %d tries; want context.Canceled before any try", err, calls)
	}
}

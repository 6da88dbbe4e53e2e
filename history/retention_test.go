package history

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
)

// aged writes a one-turn session id whose last activity is age before now.
func (e *env) aged(t *testing.T, id string, now time.Time, age time.Duration) {
	t.Helper()
	p := e.write(t, id, encode(append([]Record{e.header(id)}, turn(id, "r1", "hi", "hello")...)...))
	if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
		t.Fatal(err)
	}
}

func ids(list []SessionInfo) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.ID)
	}
	return out
}

func TestList(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	e.aged(t, "old", now, 40*24*time.Hour)
	e.aged(t, "new", now, time.Hour)
	// Not sessions: another extension, an ID outside the grammar, a
	// directory, a symlink.
	for _, name := range []string{"notes.txt", "bad.id.jsonl"} {
		if err := os.WriteFile(filepath.Join(e.dir, name), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(e.dir, "dir.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(e.dir, "old.jsonl"), filepath.Join(e.dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	list, err := List(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(list); !slices.Equal(got, []string{"new", "old"}) {
		t.Fatalf("List = %v; want [new old] (most recent first)", got)
	}
	fi, _ := os.Stat(filepath.Join(e.dir, "new.jsonl"))
	if list[0].Cwd != e.cwd || list[0].Size != fi.Size() || !list[0].LastActivity.Equal(fi.ModTime()) {
		t.Fatalf("List[0] = %+v; want cwd %q, size %d, mtime %v", list[0], e.cwd, fi.Size(), fi.ModTime())
	}
	if l, err := List(filepath.Join(e.dir, "missing")); err != nil || l != nil {
		t.Fatalf("List(missing dir) = %v, %v; want nothing", l, err)
	}
}

func TestPrune(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	day := 24 * time.Hour
	e.aged(t, "old", now, 31*day)
	e.aged(t, "exactly", now, 30*day)
	e.aged(t, "recent", now, 29*day)
	e.aged(t, "attached", now, 90*day)
	// Another holder has "attached" (a child with it attached, idle).
	a, _, code := e.store.Open("attached", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	// Open does not append: the file stays old.
	if err := os.Chtimes(filepath.Join(e.dir, "attached.jsonl"), now.Add(-90*day), now.Add(-90*day)); err != nil {
		t.Fatal(err)
	}

	if removed, err := Prune(e.dir, 0, now); err != nil || removed != nil {
		t.Fatalf("Prune(maxAge 0) = %v, %v; want nothing (disabled)", removed, err)
	}
	removed, err := Prune(e.dir, 30*day, now)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(removed); !slices.Equal(got, []string{"exactly", "old"}) {
		t.Fatalf("Prune removed %v; want [exactly old]", got)
	}
	list, _ := List(e.dir)
	if got := ids(list); !slices.Equal(got, []string{"recent", "attached"}) {
		t.Fatalf("left %v; want [recent attached]", got)
	}
	for _, name := range []string{"old.active", "old.writer", "exactly.active", "exactly.writer"} {
		if _, err := os.Lstat(filepath.Join(e.dir, leaseDir, name)); !os.IsNotExist(err) {
			t.Errorf("lock file %s left behind: %v", name, err)
		}
	}
	// The attached session is still usable by its holder.
	if _, err := a.Append(Record{Type: TypeInput, RunID: "r2", MessageID: "m9", Text: "still here"}, true); err != nil {
		t.Fatalf("append to the attached session after Prune: %v", err)
	}
	// A pruned session is missing, and its ID can be leased again.
	if _, _, code := e.store.Open("old", nil); code != protocol.CodeSessionMissing {
		t.Fatalf("Open(pruned) = %v; want session_missing", code)
	}
}

// TestLeaseAfterRemoval: Prune removes lock files while holding them; the
// ID can be leased again afterwards, exclusively.
func TestLeaseAfterRemoval(t *testing.T) {
	e := newEnv(t)
	l, code := acquireLease(e.dir, "s1")
	if code != "" {
		t.Fatal(code)
	}
	l.removeFiles(e.dir, "s1")
	l.release()
	l2, code := acquireLease(e.dir, "s1")
	if code != "" {
		t.Fatalf("acquireLease after removal = %v", code)
	}
	defer l2.release()
	if _, code := acquireLease(e.dir, "s1"); code != protocol.CodeSessionBusy {
		t.Fatalf("second acquireLease = %v; want session_busy", code)
	}
}

// TestPruneRechecksUnderTheLease: the list Prune works from may be stale
// by the time it holds a session's leases. A session appended to since the
// list was taken, or whose file was replaced by a symlink or a directory,
// is kept; an untouched one is removed.
func TestPruneRechecksUnderTheLease(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	day := 24 * time.Hour
	for _, id := range []string{"appended", "linked", "dir", "untouched"} {
		e.aged(t, id, now, 40*day)
	}
	list, err := List(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	// After the listing: a child attaches "appended", appends a turn and
	// detaches.
	a, _, code := e.store.Open("appended", nil)
	if code != "" {
		t.Fatal(code)
	}
	if _, err := a.Append(Record{Type: TypeInput, RunID: "r2", MessageID: "m2", Text: "back again"}, true); err != nil {
		t.Fatal(err)
	}
	a.Close()
	// "linked" becomes a symlink to a file elsewhere, "dir" a directory.
	target := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	if err := os.Rename(filepath.Join(e.dir, "linked.jsonl"), target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(e.dir, "linked.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(e.dir, "dir.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(e.dir, "dir.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	old := now.Add(-40 * day)
	for _, p := range []string{target, filepath.Join(e.dir, "dir.jsonl")} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}

	removed, err := prune(e.dir, list, now.Add(-30*day))
	if got := ids(removed); !slices.Equal(got, []string{"untouched"}) {
		t.Fatalf("prune removed %v (%v); want [untouched]: the others changed after the listing", got, err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "appended.jsonl")); err != nil {
		t.Errorf("the session appended to after the listing was deleted: %v", err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the symlink's target was deleted: %v", err)
	}
	if fi, err := os.Lstat(filepath.Join(e.dir, "linked.jsonl")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was removed: %v", err)
	}
	if fi, err := os.Lstat(filepath.Join(e.dir, "dir.jsonl")); err != nil || !fi.IsDir() {
		t.Errorf("the directory was removed: %v", err)
	}
}

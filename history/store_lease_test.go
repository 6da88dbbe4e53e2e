package history

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// TestFailedOpenLeases: an open that fails releases the leases it took
// (the ID can be leased again at once), and a failed reopen of the
// caller's own session leaves the caller attached with its leases.
func TestFailedOpenLeases(t *testing.T) {
	e := newEnv(t)
	e.write(t, "bad", append(encode(e.header("bad")), "{not json}\n"...))
	if _, _, code := e.store.Open("bad", nil); code != protocol.CodeSessionInvalid {
		t.Fatalf("Open(bad) = %q", code)
	}
	l, code := acquireLease(e.dir, "bad")
	if code != "" {
		t.Fatalf("lease after a failed open: %q", code)
	}
	l.release()

	path := e.write(t, "s", encode(append([]Record{e.header("s")}, turn("s", "r1", "q", "a")...)...))
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{not json}\n")
	f.Close()
	if b, _, code := e.store.Open("s", a); code != protocol.CodeSessionInvalid || b != nil {
		t.Fatalf("reopen of a damaged file = %v, %q", b, code)
	}
	if !a.Durable() {
		t.Fatal("the caller's attachment was closed by a failed reopen")
	}
	if _, _, code := NewStore(e.dir, e.cwd, fixedNow).Open("s", nil); code != protocol.CodeSessionBusy {
		t.Fatalf("leases lost by a failed reopen: %q", code)
	}
}

// TestAppendTrimsTornTail: a torn last line longer than the next record
// is cut away entirely before the append, so the file holds exactly the
// complete lines and the new record.
func TestAppendTrimsTornTail(t *testing.T) {
	e := newEnv(t)
	base := encode(append([]Record{e.header("s")}, turn("s", "r1", "q", "a")...)...)
	torn := AppendRecord(nil, &Record{Type: TypeCompaction, SessionID: "s", Text: strings.Repeat("long ", 200)})
	e.write(t, "s", append(append([]byte(nil), base...), torn[:len(torn)-1]...))
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	rec := Record{Type: TypeTaskScope, SessionID: "s", Ceiling: "w"}
	if _, err := a.Append(rec, true); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(a.path)
	if want := append(append([]byte(nil), base...), AppendRecord(nil, &rec)...); !bytes.Equal(got, want) {
		t.Fatalf("file after the append:\n%s\nwant\n%s", got, want)
	}
	// The revision names the bytes now on disk.
	if p, code := a.Snapshot(); code != "" || p.Revision() != a.Revision() || !p.Complete() {
		t.Fatalf("snapshot after the trimming append: %q", code)
	}
}

// TestAppendRefusesOutsideGrowth: when the file grew behind the lease by
// more than the torn line the attachment may trim, an append fails and
// erases nothing; after a snapshot adopts the file (and its new torn
// line), appends trim that line and go on.
func TestAppendRefusesOutsideGrowth(t *testing.T) {
	e := newEnv(t)
	base := encode(append([]Record{e.header("s")}, turn("s", "r1", "q", "a")...)...)
	e.write(t, "s", append(append([]byte(nil), base...), `{"type":"comp`...))
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	// Another writer completes the torn line and adds a torn one of its own.
	other := append(AppendRecord(nil, &Record{Type: TypeCompaction, SessionID: "s", Text: "theirs"}), `{"type":"ta`...)
	data := append(append([]byte(nil), base...), other...)
	if err := os.WriteFile(a.path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	rec := Record{Type: TypeTaskScope, Ceiling: "w"}
	// A refused append does not make the outside bytes trimmable: a
	// second one, longer than them, is refused too.
	long := Record{Type: TypeCompaction, Text: strings.Repeat("mine ", 100)}
	for range 2 {
		if _, err := a.Append(long, true); !errors.Is(err, ErrPersistence) {
			t.Fatalf("append over an outside change: %v", err)
		}
		if got, _ := os.ReadFile(a.path); !bytes.Equal(got, data) {
			t.Fatalf("the refused append changed the file:\n%s", got)
		}
	}
	if _, code := a.Snapshot(); code != "" {
		t.Fatal(code)
	}
	// Again: the snapshot adopted the new torn line, and no more.
	data = append(data[:len(data)-len(`{"type":"ta`)], `{"type":"task_scope","session_id":"s","ceiling":"x"}`+"\n"+`{"t`...)
	if err := os.WriteFile(a.path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Append(rec, true); !errors.Is(err, ErrPersistence) {
		t.Fatalf("append over a second outside change: %v", err)
	}
	if got, _ := os.ReadFile(a.path); !bytes.Equal(got, data) {
		t.Fatalf("the refused append changed the file:\n%s", got)
	}
	if _, code := a.Snapshot(); code != "" {
		t.Fatal(code)
	}
	if _, err := a.Append(rec, true); err != nil {
		t.Fatalf("append after the snapshot adopted the file: %v", err)
	}
	rec.SessionID = "s"
	want := append(append([]byte(nil), data[:len(data)-len(`{"t`)]...), AppendRecord(nil, &rec)...)
	if got, _ := os.ReadFile(a.path); !bytes.Equal(got, want) {
		t.Fatalf("file:\n%s\nwant\n%s", got, want)
	}
}

// TestTaskScopesAppended: delegated task-scope ceilings appended through
// the attachment join the stored ones, in order; after Close appends fail
// with ErrClosed.
func TestTaskScopesAppended(t *testing.T) {
	e := newEnv(t)
	e.write(t, "s", encode(e.header("s"), Record{Type: TypeTaskScope, SessionID: "s", Ceiling: "read-only"}))
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	for _, c := range []string{"workspace-write", "read-only"} {
		if _, err := a.Append(Record{Type: TypeTaskScope, Ceiling: c}, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Append(Record{Type: TypeCompaction, Text: "not a scope"}, false); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.TaskScopes(), " "); got != "read-only workspace-write read-only" {
		t.Fatalf("TaskScopes = %q", got)
	}
	a.Close()
	if _, err := a.Append(Record{Type: TypeTaskScope, Ceiling: "x"}, true); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after Close: %v", err)
	}
}

// TestCloseReleasesTheFile: Close closes the session file (and a reopen
// closes the file of the attachment it replaces).
func TestCloseReleasesTheFile(t *testing.T) {
	e := newEnv(t)
	e.write(t, "s", encode(e.header("s")))
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	f := a.file
	b, _, code := e.store.Open("s", a)
	if code != "" {
		t.Fatal(code)
	}
	if _, err := f.Seek(0, io.SeekCurrent); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("file of the replaced attachment: %v", err)
	}
	f = b.file
	b.Close()
	if _, err := f.Seek(0, io.SeekCurrent); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("file after Close: %v", err)
	}
	if b.Durable() {
		t.Fatal("a closed attachment reports a file")
	}
}

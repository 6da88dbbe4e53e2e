package history

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestListOrder: most recently active first; sessions active at the same
// instant in ID order. A header that is not a session header gives no cwd.
func TestListOrder(t *testing.T) {
	e := newEnv(t)
	now := time.Now().Truncate(time.Second)
	for _, id := range []string{"c", "a", "b"} {
		e.aged(t, id, now, time.Hour)
	}
	e.aged(t, "z", now, time.Minute)
	e.aged(t, "y", now, 2*time.Hour)
	// A file whose first line is not a header: listed, without cwd.
	p := e.write(t, "x", encode(Record{Type: TypeCompaction, SessionID: "x", Text: "/not/a/cwd"}))
	if err := os.Chtimes(p, now.Add(-3*time.Hour), now.Add(-3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	list, err := List(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(list); !slices.Equal(got, []string{"z", "a", "b", "c", "y", "x"}) {
		t.Fatalf("List = %v; want [z a b c y x]", got)
	}
	if list[5].Cwd != "" || list[0].Cwd != e.cwd {
		t.Fatalf("cwds %q %q", list[0].Cwd, list[5].Cwd)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "x.jsonl")); err != nil {
		t.Fatal(err)
	}
}

package history

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// TestCursorsNeverIssuedAreStale: the first page is reached with a null
// cursor only, so a cursor naming its start was never issued and is
// stale_revision (docs/protocol.md, Choices), like one naming a start that
// is not a page boundary; the issued cursors page through in order.
func TestCursorsNeverIssuedAreStale(t *testing.T) {
	e := newEnv(t)
	recs := []Record{e.header("s")}
	for i := range 150 {
		recs = append(recs, turn("s", fmt.Sprint("r", i), "q", "a")...)
	}
	e.write(t, "s", encode(recs...))
	a, _, code := e.store.Open("s", nil)
	if code != "" {
		t.Fatal(code)
	}
	defer a.Close()
	rev := a.Revision()
	raw, code := a.Page(rev, nil)
	if code != "" {
		t.Fatal(code)
	}
	i := bytes.Index(raw, []byte(`"next_cursor":"`))
	next := string(raw[i+15 : i+15+bytes.IndexByte(raw[i+15:], '"')])
	prefix, start, _ := strings.Cut(next, ".")
	for _, c := range []string{prefix + ".0", prefix + ".-0", prefix + ".-1", prefix + "." + start + "1", prefix + ".1"} {
		if c == next {
			continue
		}
		if _, code := a.Page(rev, &c); code != protocol.CodeStaleRevision {
			t.Errorf("cursor %q (issued: %q): %q; want stale_revision", c, next, code)
		}
	}
	if _, code := a.Page(rev, &next); code != "" {
		t.Fatalf("issued cursor %q: %q", next, code)
	}
}

package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstInput: the text of the first required input of a stored
// session; "" when there is none within the first 64 KiB, when the file is
// missing or not a regular file; the part within them of an input that
// runs past them, whatever escape or character the cut splits.
func TestFirstInput(t *testing.T) {
	e := newEnv(t)
	e.write(t, "s", encode(e.header("s"),
		Record{Type: TypeInternalInput, SessionID: "s", Text: "automatic"},
		Record{Type: TypeInput, SessionID: "s", RunID: "r1", MessageID: "u1", Text: "first \"question\""},
		Record{Type: TypeInput, SessionID: "s", RunID: "r2", MessageID: "u2", Text: "second"}))
	e.write(t, "none", encode(e.header("none"), Record{Type: TypeCompaction, SessionID: "none", Text: "summary"}))
	e.write(t, "late", encode(e.header("late"),
		Record{Type: TypeCompaction, SessionID: "late", Text: strings.Repeat("x", headerBytes)},
		Record{Type: TypeInput, SessionID: "late", MessageID: "u", Text: "too far"}))
	// é, \", \\, \u2028 and x take 13 bytes in the file: 13 paddings cut
	// each of them at every place.
	for pad := range 13 {
		long := "the title" + strings.Repeat("p", pad) + "\n" + strings.Repeat("é\"\\\u2028x", headerBytes/4)
		e.write(t, "long", encode(e.header("long"), Record{Type: TypeInput, SessionID: "long", RunID: "r1", MessageID: "u1", Text: long}))
		if got := FirstInput(e.dir, "long"); len(got) < headerBytes/2 || !strings.HasPrefix(long, got) {
			t.Errorf("pad %d: FirstInput(long) = %.40q...%q (%d bytes); want a prefix of the text", pad, got, got[max(0, len(got)-12):], len(got))
		}
	}
	if err := os.Symlink(filepath.Join(e.dir, "s.jsonl"), filepath.Join(e.dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"s": `first "question"`, "none": "", "late": "", "link": "", "missing": ""} {
		if got := FirstInput(e.dir, id); got != want {
			t.Errorf("FirstInput(%s) = %q; want %q", id, got, want)
		}
	}
}

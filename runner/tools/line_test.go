package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestEditFirstChangedLine: an edit's Result.Line is the first line where
// the file differs afterwards (old and new may share a prefix, end in the
// middle of a line, or only insert after it); a failed edit has none.
func TestEditFirstChangedLine(t *testing.T) {
	const file = "one\ntwo\nthree\nfour\n"
	for _, tc := range []struct {
		old, new string
		line     int
	}{
		{"one", "ONE", 1},
		{"three", "3", 3},
		{"two\nthree", "two\nTHREE", 3},   // the shared line is unchanged
		{"two\n", "two\nnew\n", 3},        // an insertion after line 2
		{"thr", "thR", 3},                 // a change in the middle of a line
		{"four\n", "fourth\n", 4},         // the shared prefix ends mid-line
		{"one\ntwo\n", "", 1},             // a deletion
		{"ee\nfour", "ee\nfour\nfive", 5}, // old starts mid-line; the file differs after line 4
		{"four\n", "four\nfive\n", 5},     // an append at the end
		{"two", "two", 2},                 // no change: old's line
		{"absent", "x", 0},                // not found: no line
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(map[string]string{"path": "f", "old": tc.old, "new": tc.new})
		res := run(t, dir, 1000, "edit_file", string(args))
		if res.Line != tc.line || res.IsError != (tc.line == 0) {
			t.Errorf("%q -> %q: line %d (error %v %q), want %d", tc.old, tc.new, res.Line, res.IsError, res.Text, tc.line)
		}
	}
}

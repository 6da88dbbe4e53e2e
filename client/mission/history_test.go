package mission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPromptHistoryAcrossRuns: what one run sends, the next one's Up
// brings back, newest first; the file is 0600, a repeat is kept once, an
// entry over the bound is not kept, lines that are not JSON strings are
// skipped.
func TestPromptHistoryAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prompt-history.jsonl")
	if err := os.WriteFile(path, []byte("\"older\"\nnot json\n{\"a\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := OpenHistory(path)
	for _, s := range []string{"first", "first", strings.Repeat("x", maxPromptEntry+1), "line one\nline two"} {
		h.Add(s)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", st.Mode(), err)
	}
	m := New(Options{History: OpenHistory(path)})
	var got []string
	for range 5 { // the second Up moves within the two-line entry
		key(m, "up")
		got = append(got, m.input.Value())
	}
	if strings.Join(got, "|") != "line one\nline two|line one\nline two|first|older|older" {
		t.Fatalf("Up walked %q", got)
	}
}

// TestPromptHistoryBounded: the newest keptPrompts entries are kept, and a
// file past the rewrite bound is rewritten with them alone; start-up reads
// only the file's tail, whatever its size.
func TestPromptHistoryBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prompt-history.jsonl")
	var b strings.Builder
	pad := strings.Repeat("p", 4000)
	for i := range 1000 {
		line, _ := json.Marshal(fmt.Sprintf("prompt %04d %s", i, pad))
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	h := OpenHistory(path)
	e := h.Entries()
	if len(e) != keptPrompts || !strings.HasPrefix(e[len(e)-1], "prompt 0999") || !strings.HasPrefix(e[0], "prompt 0500") {
		t.Fatalf("%d entries, %.12q..%.12q", len(e), e[0], e[len(e)-1])
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() > historyRewriteBytes*3 || st.Size() == int64(b.Len()) {
		t.Fatalf("the file was not rewritten: %d bytes, %v", st.Size(), err)
	}
	if again := OpenHistory(path).Entries(); len(again) != len(e) || again[0] != e[0] {
		t.Fatalf("the rewritten file holds %d entries", len(again))
	}
}

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

// bigHistory writes n entries of about size bytes each ("entry NNNN "
// then padding) and returns the file's lines.
func bigHistory(t *testing.T, path string, n, size int) []string {
	t.Helper()
	var lines []string
	var b strings.Builder
	for i := range n {
		line, _ := json.Marshal(fmt.Sprintf("entry %04d %s", i, strings.Repeat("q", size)))
		lines = append(lines, string(line))
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return lines
}

// tailEntries are the entries whose whole line lies in the last
// historyReadBytes of the file.
func tailEntries(lines []string) []string {
	total := 0
	for _, l := range lines {
		total += len(l) + 1
	}
	var out []string
	at := 0
	for _, l := range lines {
		if at >= total-historyReadBytes+1 { // a line starting past the cut, after the partial one
			var s string
			_ = json.Unmarshal([]byte(l), &s)
			out = append(out, s)
		}
		at += len(l) + 1
	}
	return out
}

// TestPromptHistoryTailRead: start-up reads only the file's last 2 MiB.
// Entries of 15 KB make fewer than keptPrompts fit there, so what is kept
// shows what was read: exactly the entries whose line lies whole in the
// tail (the line the cut falls in is skipped, even when its end would
// read as a JSON string), never an older one.
func TestPromptHistoryTailRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prompt-history.jsonl")
	lines := bigHistory(t, path, 300, 15000)
	want := tailEntries(lines)
	if len(want) == 0 || len(want) >= 300 || len(want) >= keptPrompts {
		t.Fatalf("the scene is wrong: %d entries in the tail", len(want))
	}
	got := OpenHistory(path).Entries()
	if len(got) != len(want) || got[0] != want[0] || got[len(got)-1] != want[len(want)-1] {
		t.Fatalf("kept %d entries (%.10q..); want the %d of the tail (%.10q..)", len(got), got[0], len(want), want[0])
	}
	// The cut falls inside a line whose end is a JSON string itself:
	// "lead \"ttt..." read from its second quote is "ttt...".
	path2 := filepath.Join(t.TempDir(), "prompt-history.jsonl")
	tail := strings.Repeat("t", 100)
	lead, _ := json.Marshal("lead \"" + tail)
	cut := strings.Index(string(lead), `\"`) + 1
	var b strings.Builder
	b.Write(append(lead, '\n'))
	// After the cut, exactly historyReadBytes: fillers, then one line
	// sized to end there.
	rest := historyReadBytes - (len(lead) + 1 - cut)
	for i := 0; rest > 10000; i++ {
		line, _ := json.Marshal(fmt.Sprintf("filler %05d %s", i, strings.Repeat("f", 8000)))
		b.Write(append(line, '\n'))
		rest -= len(line) + 1
	}
	last, _ := json.Marshal(strings.Repeat("z", rest-3))
	b.Write(append(last, '\n'))
	if int64(b.Len())-historyReadBytes != int64(cut) {
		t.Fatalf("scene: the read starts at %d, not %d", b.Len()-historyReadBytes, cut)
	}
	if err := os.WriteFile(path2, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, e := range OpenHistory(path2).Entries() {
		if e == tail || strings.HasPrefix(e, "lead") {
			t.Fatalf("the line the cut falls in was kept: %.20q", e)
		}
	}
}

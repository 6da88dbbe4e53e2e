package worker

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestChunksCutOnRuneBoundaries: a long reply of multibyte runes (one and
// four bytes, so a 16 KiB chunk boundary falls inside a rune) is stored as
// chunk records of valid UTF-8 that join into the whole reply, and it
// reconciles whole.
func TestChunksCutOnRuneBoundaries(t *testing.T) {
	const piece = "a😀漢é"                // 1+4+3+2 bytes
	long := strings.Repeat(piece, 5000) // 50,000 bytes
	p, events, sid := startedPool(t, `{"responses":[{"steps":[{"text":"`+piece+`","repeat":5000}]}]}`, "")
	evs := runTurn(t, p, events, sid, "go")
	if got := reconciled(evs); got != long {
		t.Fatalf("reconciled %d bytes; want %d", len(got), len(long))
	}
	data, err := os.ReadFile(filepath.Join(p.runtime().runner.SessionsDir(), sid+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var chunks strings.Builder
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct{ Type, Text string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Type != "assistant_chunk" {
			continue
		}
		if !utf8.ValidString(rec.Text) || strings.ContainsRune(rec.Text, utf8.RuneError) {
			t.Fatalf("chunk %d is not whole runes", n)
		}
		n++
		chunks.WriteString(rec.Text)
	}
	if n < 3 || chunks.String() != long {
		t.Fatalf("%d chunks holding %d bytes; want at least 3 holding the whole %d-byte reply", n, chunks.Len(), len(long))
	}
}

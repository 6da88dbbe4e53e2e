package redact

import (
	"strings"
	"testing"
)

// TestPushResultsStay: what Push returned does not change as the Stream
// goes on (its clean results share slabs).
func TestPushResultsStay(t *testing.T) {
	in := strings.Repeat(cleanLine+"x", 300) + "token ghp_" + rep(an, 36) + " " + strings.Repeat("y", 5000) + cleanLine
	var s Stream
	var kept []string
	var copies []string
	for i := 0; i < len(in); i += 37 {
		out := s.Push(in[i:min(i+37, len(in))])
		kept = append(kept, out)
		copies = append(copies, strings.Clone(out))
	}
	kept = append(kept, s.Flush())
	copies = append(copies, kept[len(kept)-1])
	for i := range kept {
		if kept[i] != copies[i] {
			t.Fatalf("Push result %d changed to %q; was %q", i, kept[i], copies[i])
		}
	}
	if got, want := strings.Join(kept, ""), String(in); got != want {
		t.Fatalf("Stream = %q; String = %q", got, want)
	}
}

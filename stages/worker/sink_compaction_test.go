package worker

import (
	"os"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner"
)

// TestSinkCompactionKeepsEveryUserPrompt: a compaction is stored as its
// summary followed by every kept user prompt, in order, as internal input
// (the replay sends them; pages never show them).
func TestSinkCompactionKeepsEveryUserPrompt(t *testing.T) {
	s, q, path := testSink(t)
	evs := drain(q)
	kept := []runner.Message{{Role: runner.RoleUser, Text: "first kept"}, {Role: runner.RoleUser, Text: "second kept"}}
	if err := s.Compaction("the summary", kept); err != nil {
		t.Fatal(err)
	}
	q.Close()
	<-evs
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	file := string(data)
	i, j, k := strings.Index(file, "the summary"), strings.Index(file, "first kept"), strings.Index(file, "second kept")
	if i < 0 || j < i || k < j || strings.Count(file, `"internal_input"`) != 2 {
		t.Fatalf("stored compaction:\n%s\nwant the summary, then both kept prompts as internal input", file)
	}
}

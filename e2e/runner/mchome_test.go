package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfinedCannotReadMCHome: under approval = "auto", through serve
// --stdio, a confined shell command cannot read the files of MC_HOME (the
// stored provider credentials, every project's sessions and logs), by its
// real path, through the link MC_HOME is configured as, or from a script;
// nothing of them reaches a model request. The rest of HOME stays readable
// and listable, and so does MC_HOME's listing of names. Nothing asks.
func TestConfinedCannotReadMCHome(t *testing.T) {
	t.Parallel()
	s := newReadScene(t)
	mc := filepath.Join(s.home, ".magi-code")
	canary := strings.TrimSpace(readFile(t, filepath.Join(mc, "notes.md")))
	if err := os.WriteFile(filepath.Join(s.home, "plain.txt"), []byte("PLAIN-READABLE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds := []string{
		"cat " + filepath.Join(mc, "notes.md"),
		"cat " + filepath.Join(s.root, "mclink", "notes.md"),
		"cat " + filepath.Join(mc, "sessions") + "/*.jsonl",
		`python3 -c "import sys; print(open(sys.argv[1]).read())" ` + filepath.Join(s.root, "mclink", "notes.md"),
		"cat ~/plain.txt && ls -a ~ && ls " + mc,
	}
	reqs := s.confinedShells(t, "read MC_HOME", cmds)
	for i, req := range reqs {
		if bytes.Contains(req.Body, []byte(canary)) {
			t.Errorf("model request %d carries MC_HOME's canary", i)
		}
		if i > 0 && i <= 3 && !strings.Contains(lastToolResult(t, req.Body), "Permission denied") {
			t.Errorf("command %q: %q; want Permission denied", cmds[i-1], lastToolResult(t, req.Body))
		}
	}
	last := lastToolResult(t, reqs[len(cmds)].Body)
	for _, want := range []string{"PLAIN-READABLE", "plain.txt", ".magi-code", "notes.md"} {
		if !strings.Contains(last, want) {
			t.Errorf("the rest of HOME: %q lacks %q", last, want)
		}
	}
}

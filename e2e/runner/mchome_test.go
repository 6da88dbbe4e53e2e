package runner

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
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
	var answers []http.HandlerFunc
	for i, c := range cmds {
		answers = append(answers, oaCall(fmt.Sprintf("call_%d", i), "shell", map[string]any{"command": c}))
	}
	llm := newLLMServer(t, append(answers, sseAnswer(false, oaTextResponse("done")...))...)
	ch := s.start(t, openaiFormat.settings(llm.srv.URL)+"\n[tools]\napproval = \"auto\"\n")
	var st struct {
		Sandbox string `json:"sandbox"`
	}
	if ch.Result("status", nil, &st); st.Sandbox != "workspace-write" {
		ch.Shutdown()
		t.Skipf("no OS sandbox here (status sandbox %q)", st.Sandbox)
	}
	r := ch.Turn(ch.Create().SessionID, "read MC_HOME")
	r.WantOutcome(t, "completed", "")
	if n := r.Count(protocol.EventApprovalRequested); n != 0 {
		t.Errorf("%d approval requests under auto; want 0", n)
	}
	ch.Shutdown()
	reqs := llm.recorded()
	if len(reqs) != len(cmds)+1 {
		t.Fatalf("%d model requests; want %d", len(reqs), len(cmds)+1)
	}
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

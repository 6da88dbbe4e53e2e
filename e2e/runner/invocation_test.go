package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestInvocationLocalAgent: serve --stdio is the local agent. Every hook
// reads "invocation":"local_agent" in its input, and every line of the
// child's diagnostic log carries it.
func TestInvocationLocalAgent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pre, stop := filepath.Join(dir, "pre.json"), filepath.Join(dir, "stop.json")
	settings := script(t, dir, []step{shell("true")}, []step{text("done")}) + "\n[tools]\napproval = \"auto\"\n" +
		hook("pre_tool_use", "shell", "cat > "+clienttest.Quote(pre)) + hook("stop", "", "cat > "+clienttest.Quote(stop))
	ws := clienttest.NewWorkspace(t, settings)
	ch := startChild(t, ws, client.Options{})
	sid := ch.Create().SessionID
	ch.Turn(sid, "run it").WantOutcome(t, "completed", "")
	ch.Shutdown()

	for _, p := range []string{pre, stop} {
		var in map[string]any
		if err := json.Unmarshal([]byte(readFile(t, p)), &in); err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		if in["invocation"] != protocol.InvocationLocalAgent {
			t.Errorf("%s hook input %v; want invocation %q", in["event"], in, protocol.InvocationLocalAgent)
		}
	}

	logs, err := filepath.Glob(filepath.Join(ws.Home, "logs", "serve-*.log"))
	if err != nil || len(logs) != 1 {
		t.Fatalf("log files %v, %v; want one", logs, err)
	}
	raw, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) < 3 {
		t.Fatalf("log has %d lines; want the start, the initialization and more", len(lines))
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["invocation"] != protocol.InvocationLocalAgent {
			t.Errorf("log line %.200s (%v); want invocation %q", l, err, protocol.InvocationLocalAgent)
		}
	}
}

package session

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// endedAtOutputDeadline is for a test whose reader is slow on purpose but
// whose subject is not the output deadline: when its event stream ends
// early, the only acceptable reason is the one the protocol mandates for a
// reader that falls 2000 ms behind (a machine loaded enough can slow any
// reader that much): exit 1, nothing on stderr, and the log's exit line
// naming output_deadline. Anything else fails t.
func endedAtOutputDeadline(t *testing.T, ch *child, ws *clienttest.Workspace) {
	t.Helper()
	code, stderr := clienttest.WaitExit(t, ch.C)
	if code != 1 || len(stderr) != 0 {
		t.Fatalf("the event stream ended with exit %d, stderr %q; want exit 1 at the output deadline or no end", code, stderr)
	}
	files, err := filepath.Glob(filepath.Join(ws.Home, "logs", "serve-*.log"))
	if err != nil || len(files) != 1 {
		t.Fatalf("child logs %v (%v); want one", files, err)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var last map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		last = nil
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("log line %q: %v", sc.Bytes(), err)
		}
	}
	if last["msg"] != "exit" || last["cause"] != "output_deadline" {
		t.Fatalf("the child exited 1 with the log's last line %v; want the exit line naming output_deadline", last)
	}
	t.Logf("the reader fell 2000 ms behind (a loaded machine): the child exited 1 at the output deadline, as the protocol requires")
}

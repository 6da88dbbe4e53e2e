package history

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

const syncTraceEnv = "MAGI_HISTORY_SYNC_TRACE"

// TestSyncAppendsFsyncTheFile: every append with sync (required input,
// run completion) fsyncs the session file before it returns, not only the
// one that created the file. The test runs a helper under strace and counts
// the fsyncs of the session file's descriptor.
func TestSyncAppendsFsyncTheFile(t *testing.T) {
	if os.Getenv(syncTraceEnv) != "" {
		syncTraceHelper()
		return
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not installed")
	}
	e := newEnv(t)
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-ff", "-qq", "-e", "trace=openat,fsync,fdatasync", "-o", trace,
		os.Args[0], "-test.run=^TestSyncAppendsFsyncTheFile$")
	cmd.Env = append(os.Environ(), syncTraceEnv+"=1", "DIR="+e.dir, "CWD="+e.cwd)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("helper ok")) {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(trace + ".*")
	var tr []byte
	for _, f := range files {
		b, _ := os.ReadFile(f)
		tr = append(tr, b...)
	}
	open := regexp.MustCompile(`openat\(AT_FDCWD, "` + regexp.QuoteMeta(filepath.Join(e.dir, "f.jsonl")) + `", [^)]*O_CREAT[^)]*\) = (\d+)`)
	m := open.FindSubmatch(tr)
	if m == nil {
		t.Fatalf("no creation of the session file in the trace:\n%s", tr)
	}
	n := regexp.MustCompile(`\bf(data)?sync\(`+string(m[1])+`\)`).FindAll(tr, -1)
	if len(n) != 3 {
		t.Fatalf("%d fsyncs of the session file; want 3 (one per sync append)\n%s", len(n), tr)
	}
}

func syncTraceHelper() {
	s := NewStore(os.Getenv("DIR"), os.Getenv("CWD"), fixedNow)
	a, code := s.Create("f", Selection{})
	if code != "" {
		fmt.Println("create:", code)
		os.Exit(1)
	}
	for i, r := range []Record{
		{Type: TypeInput, RunID: "r1", MessageID: "u1", Text: "creates the file"},
		{Type: TypeRunCompleted, RunID: "r1", Outcome: "completed"},
		{Type: TypeInput, RunID: "r2", MessageID: "u2", Text: "second input"},
	} {
		if _, err := a.Append(r, true); err != nil {
			fmt.Println("append", i, err)
			os.Exit(1)
		}
	}
	a.Close()
	fmt.Println("helper ok")
	os.Exit(0)
}

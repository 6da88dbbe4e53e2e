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
	e := newEnv(t)
	tr := straceHelper(t, "TestSyncAppendsFsyncTheFile", syncTraceEnv+"=1", "DIR="+e.dir, "CWD="+e.cwd)
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

// straceHelper runs the test named test again, as a helper process with
// env added to the environment, under strace tracing openat, fsync and
// fdatasync, and returns the trace; it fails t unless the helper printed
// "helper ok". With -ff each thread writes its own file, so that no call is
// split into "<unfinished ...>" and "<... resumed>" lines by another
// thread's (which a loaded machine makes likely). It skips t without
// strace.
func straceHelper(t *testing.T, test string, env ...string) []byte {
	t.Helper()
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not installed")
	}
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-ff", "-qq", "-e", "trace=openat,fsync,fdatasync", "-o", trace,
		os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("helper ok")) {
		t.Fatalf("helper %q: %v\n%s", env, err, out)
	}
	files, _ := filepath.Glob(trace + ".*")
	var tr []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr = append(tr, b...)
	}
	return tr
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

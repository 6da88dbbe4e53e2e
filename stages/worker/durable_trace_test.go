package worker

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
)

const durableTraceEnv = "MAGI_WORKER_DURABLE_TRACE"

// TestCompletionRecordFsyncedBeforeDurable: the run's completion record is
// written and fsynced before run.finished says persistence "durable"
// (docs/protocol.md, Run events). A helper process runs one turn through
// the pool under strace; when it has received run.finished it opens a
// marker path. In the trace (every thread's, ordered by time), the write
// of the run_completed record to the session file must be followed by an
// fsync of that descriptor before the marker: the fsync returned before
// Append did, and run.finished was offered only after that.
func TestCompletionRecordFsyncedBeforeDurable(t *testing.T) {
	if os.Getenv(durableTraceEnv) != "" {
		durableTraceHelper(t)
		return
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not installed")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "run-finished-received")
	trace := filepath.Join(dir, "trace")
	cmd := exec.Command(strace, "-ff", "-qq", "-ttt", "-s", "48", "-e", "trace=openat,pwrite64,write,fsync,fdatasync",
		"-o", trace, os.Args[0], "-test.run=^TestCompletionRecordFsyncedBeforeDurable$", "-test.count=1")
	cmd.Env = append(os.Environ(), durableTraceEnv+"="+marker)
	out, err := runBounded(cmd, time.Minute)
	if err != nil || !bytes.Contains(out, []byte("helper ok")) {
		t.Fatalf("helper under strace: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(trace + ".*")
	var lines []traceLine
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			if sp := bytes.IndexByte(l, ' '); sp > 0 {
				if ts, err := strconv.ParseFloat(string(l[:sp]), 64); err == nil {
					lines = append(lines, traceLine{ts, string(l[sp+1:])})
				}
			}
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].ts < lines[j].ts })
	written := regexp.MustCompile(`^pwrite64\((\d+), "\{\\"type\\":\\"run_completed\\"`)
	fsynced := regexp.MustCompile(`^f(data)?sync\((\d+)\)\s+= 0`)
	fd := ""
	synced := false
	for _, l := range lines {
		if m := written.FindStringSubmatch(l.call); m != nil {
			fd, synced = m[1], false
			continue
		}
		if m := fsynced.FindStringSubmatch(l.call); m != nil && m[2] == fd {
			synced = true
		}
		if bytes.Contains([]byte(l.call), []byte(marker)) {
			if fd == "" {
				t.Fatalf("run.finished was received before any write of the run_completed record:\n%s", dump(lines))
			}
			if !synced {
				t.Fatalf("the run_completed record (descriptor %s) was not fsynced before run.finished said durable:\n%s", fd, dump(lines))
			}
			return
		}
	}
	t.Fatalf("the helper's marker %s is not in the trace:\n%s", marker, dump(lines))
}

type traceLine struct {
	ts   float64
	call string
}

// dump renders the writes, fsyncs and the marker of the trace.
func dump(lines []traceLine) string {
	var b bytes.Buffer
	for _, l := range lines {
		if !regexp.MustCompile(`^(pwrite64|fsync|fdatasync|openat\(.*run-finished-received)`).MatchString(l.call) {
			continue
		}
		fmt.Fprintf(&b, "%.6f %s\n", l.ts, l.call)
	}
	return b.String()
}

// runBounded runs cmd and returns its combined output; past bound it kills
// the process and says so.
func runBounded(cmd *exec.Cmd, bound time.Duration) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.Bytes(), err
	case <-time.After(bound):
		_ = cmd.Process.Kill()
		<-done
		return out.Bytes(), fmt.Errorf("the helper did not exit within %v", bound)
	}
}

// durableTraceHelper runs one turn with a session and opens the marker
// path once run.finished has arrived.
func durableTraceHelper(t *testing.T) {
	p, events, sid := startedPool(t, "", "")
	evs := runTurn(t, p, events, sid, "hello")
	last := evs[len(evs)-1]
	if last.Name != protocol.EventRunFinished || last.Persistence != "durable" {
		t.Fatalf("last event = %+v; want run.finished, durable", last)
	}
	if f, err := os.Open(os.Getenv(durableTraceEnv)); err == nil { // the marker: an openat in the trace
		f.Close()
	}
	fmt.Println("helper ok")
}

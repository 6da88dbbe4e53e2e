package session

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestFloodSlowReader floods 1,000,000 deltas of 100 bytes at a reader that
// starts slow (a small client buffer and a consumer that sleeps per event):
// deltas drop, visibly (gaps in part numbers), while the authoritative
// reconcile and run.finished arrive intact and exactly once.
//
// 100 MB exceeds the spec's 8 MiB of assistant content per run, so the run
// must fail with content_limit and truthfully reconcile the accepted prefix
// as partial: whole 100-byte units, no silent truncation.
func TestFloodSlowReader(t *testing.T) {
	t.Parallel()
	unit := strings.Repeat("flood-0123456789 ", 6)[:99] + "\n" // 100 bytes
	const n = 1_000_000
	ws := newWorkspace(t, "", response(repeat(unit, n)))
	ch := start(t, ws, client.Options{EventBuffer: 2})
	cwd, err := filepath.EvalSymlinks(ws.Cwd)
	if err != nil {
		t.Fatal(err)
	}
	pid := childPid(t, cwd)
	s := ch.Create()
	runID, adm := ch.StartTurn(s.SessionID, "flood me")

	var evs []client.Event
	ctx := clienttest.Guard(t)
	for {
		ev, err := ch.C.WaitEvent(ctx, func(client.Event) bool { return true })
		if err != nil {
			t.Fatalf("after %d events: %v", len(evs), err)
		}
		if len(evs) < 1000 {
			time.Sleep(time.Millisecond) // the slow phase
		}
		evs = append(evs, ev)
		if ev.Name == protocol.EventRunFinished {
			break
		}
	}
	run := clienttest.CheckRun(t, s.SessionID, runID, adm, evs)
	if run.Count(protocol.EventRunFinished) != 1 {
		t.Fatal("run.finished not exactly once")
	}
	gaps, deltas, lastPart, deltaBytes := 0, 0, -1, 0
	for _, ev := range run.Events {
		if ev.Name != protocol.EventMessageDelta {
			continue
		}
		var te clienttest.TextEvent
		if err := ev.Decode(&te); err != nil {
			t.Fatal(err)
		}
		if te.Part != lastPart+1 {
			gaps++
		}
		lastPart = te.Part
		deltas++
		deltaBytes += len(te.Text)
	}
	t.Logf("%d events, %d deltas delivered (%d bytes), %d gaps, last delta part %d", len(run.Events), deltas, deltaBytes, gaps, lastPart)
	// Deltas are best effort: under a slow reader some text never arrives
	// as a delta (a gap in the part numbers, or parts dropped after the last
	// delivered one), and the reconcile still carries all of it.
	if deltaBytes >= len(run.Reply()) {
		t.Fatal("no delta was dropped under a slow reader")
	}
	if len(run.Messages) != 1 {
		t.Fatalf("%d reconciled messages", len(run.Messages))
	}
	got := run.Reply()
	switch run.Finished.Outcome {
	case "failed":
		if run.Finished.ErrorCode == nil || *run.Finished.ErrorCode != string(protocol.CodeContentLimit) {
			t.Fatalf("run.finished %s", run.Events[len(run.Events)-1].Data)
		}
		if !run.Messages[0].Partial {
			t.Fatal("reconcile of a run past the content limit is not partial")
		}
		if len(got) > protocol.RunContentBytes || len(got) < protocol.RunContentBytes-len(unit) || len(got)%len(unit) != 0 || got != strings.Repeat(unit, len(got)/len(unit)) {
			t.Fatalf("reconciled %d bytes; want the accepted whole units up to %d", len(got), protocol.RunContentBytes)
		}
	default:
		t.Fatalf("run.finished %s; want failed with content_limit (100 MB > 8 MiB)", run.Events[len(run.Events)-1].Data)
	}
	ch.noEventsAfter()
	// Memory stays bounded by the spec's limits, not by the 100 MB flood.
	hwm := peakRSS(t, pid)
	t.Logf("child peak RSS %d MiB", hwm>>20)
	if hwm > maxFloodRSS {
		t.Fatalf("child peak RSS %d MiB over a 100 MB flood; want at most %d MiB", hwm>>20, maxFloodRSS>>20)
	}
}

// maxFloodRSS is a generous bound: 8 MiB of content held a few times over
// (reply, history record, redacted copy, reconcile chunks) plus the runtime.
const maxFloodRSS = 128 << 20

// peakRSS reads VmHWM of pid.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

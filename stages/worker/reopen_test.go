package worker

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/wire"
)

// poolIn initializes a pool for an existing MC_HOME and cwd and forwards its
// events; the caller attaches a session.
func poolIn(t *testing.T, home, cwd string) (*Pool, chan wire.Event, *recProvider) {
	t.Helper()
	p, q := newTestPool(t)
	p.opts.Env = runner.Env{MCHome: home, Cwd: cwd}
	rec := recordProvider(p)
	initDone := make(chan dispatch.InitDone, 1)
	p.StartInit(context.Background(), nil, func(d dispatch.InitDone) { initDone <- d })
	if d := <-initDone; d.Code != "" {
		t.Fatalf("init = %+v", d)
	}
	events := make(chan wire.Event, 1<<12)
	go func() {
		for e := range q.C() {
			events <- e
		}
		close(events)
	}()
	t.Cleanup(func() {
		p.Wait()
		p.Teardown(context.Background())
		q.Close()
	})
	return p, events, rec
}

func op(t *testing.T, p *Pool, o dispatch.StartOp) dispatch.OpDone {
	t.Helper()
	done := make(chan dispatch.OpDone, 1)
	p.StartOp(context.Background(), o, func(d dispatch.OpDone) { done <- d })
	d := <-done
	if d.Code != "" {
		t.Fatalf("op %d = %+v", o.Op, d)
	}
	return d
}

// Issue 7: "delegated task-scope ceilings recorded in the session are
// honoured on reopen": a profile that gained tools after the ceiling was
// recorded still gets only the recorded ones in a new child.
func TestTaskCeilingHonouredOnReopen(t *testing.T) {
	root := t.TempDir()
	home, cwd := filepath.Join(root, "home"), filepath.Join(root, "work")
	for _, d := range []string{filepath.Join(home, "agents"), cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(home, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(root, "script.json")
	if err := os.WriteFile(script, []byte(`{"responses":[`+
		`{"steps":[{"tool_call":{"name":"task","arguments":{"profile":"explore","prompt":"look"}}}]},`+
		`{"steps":[{"text":"sub answer"}]},{"steps":[{"text":"done"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	write("settings.toml", "provider = \"fixture\"\n[providers.fixture]\nscript = \""+script+"\"\n")
	write("agents/explore.md", "---\ndescription: explores\ntools: [list_dir]\n---\nYou explore.\n")

	first, events, _ := poolIn(t, home, cwd)
	sid := op(t, first, dispatch.StartOp{ID: "r", Op: dispatch.OpCreate}).Attached
	runTurn(t, first, events, sid, "a go")
	if got := first.attachment().TaskScopes(); !slices.Equal(got, []string{`{"profile":"explore","tools":["list_dir"]}`}) {
		t.Fatalf("recorded ceilings %q", got)
	}
	first.Teardown(context.Background()) // release the session's leases

	// The profile now asks for more; the session's ceiling still holds.
	write("agents/explore.md", "---\ndescription: explores\ntools: [list_dir, read_file, shell]\n---\nYou explore.\n")
	second, events2, rec := poolIn(t, home, cwd)
	op(t, second, dispatch.StartOp{ID: "r", Op: dispatch.OpOpen, Open: dispatch.OpenParams{SessionID: sid}})
	runTurn(t, second, events2, sid, "b go")
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) < 2 {
		t.Fatalf("%d provider requests", len(rec.reqs))
	}
	var sub []string
	for _, s := range rec.reqs[1].Tools {
		sub = append(sub, s.Name)
	}
	if !slices.Equal(sub, []string{"list_dir"}) {
		t.Fatalf("subagent tools after reopen %q; want only the recorded ceiling [list_dir]", sub)
	}
}

// An empty existing session file is durable but has no header: its first
// append records the child's selection (as a created session's does), so a
// later open can restore it.
func TestEmptyFileRecordsSelection(t *testing.T) {
	p, events, _ := startedPool(t, "", "")
	sessions := p.runtime().runner.SessionsDir()
	if err := os.WriteFile(filepath.Join(sessions, "empty"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(sessions, "empty"), filepath.Join(sessions, "empty.jsonl")); err != nil {
		t.Fatal(err)
	}
	if d := op(t, p, dispatch.StartOp{ID: "r", Op: dispatch.OpOpen, Open: dispatch.OpenParams{SessionID: "empty"}}); d.Attached != "empty" {
		t.Fatalf("open = %+v", d)
	}
	runTurn(t, p, events, "empty", "hi")
	data, err := os.ReadFile(filepath.Join(sessions, "empty.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(data), "\n")
	if !strings.Contains(header, `"provider":"fixture"`) || !strings.Contains(header, `"model":"fixture-model"`) {
		t.Fatalf("header %s does not record the selection", header)
	}
}

// The worker reports what happened; whether an operation that finished
// after shutdown counts as operation_cancelled is dispatch.Machine's
// decision alone (its tests cover it). A create under a cancelled work
// context still reports the attachment it made, which Teardown releases.
func TestOpReportsOutcomeUnderCancelledContext(t *testing.T) {
	p, _, _ := startedPool(t, "", "")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan dispatch.OpDone, 1)
	p.StartOp(cancelled, dispatch.StartOp{ID: "r2", Op: dispatch.OpCreate}, func(d dispatch.OpDone) { done <- d })
	if d := <-done; d.Code != "" || d.Attached == "" {
		t.Fatalf("create under a cancelled context = %+v; want the attachment reported, not a code", d)
	}
}

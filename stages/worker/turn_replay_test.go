package worker

// Tests of a turn's semantics across a crash and a replay ("Turns, approvals
// and events" and "Owned sessions and chat history" in docs/protocol.md):
// every tool call is answered in what the next child replays, and model text
// reaches no frame unredacted.

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/magi-code/magi-code/backpressure"
	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/stages/dispatch"
)

// unansweredCalls returns the IDs of assistant tool calls that no tool
// message answers before the next user or assistant message: a conversation
// the OpenAI and Anthropic APIs reject with 400.
func unansweredCalls(msgs []provider.Message) []string {
	var open []string
	var bad []string
	for _, m := range msgs {
		switch m.Role {
		case provider.RoleTool:
			for i, id := range open {
				if id == m.ToolCallID {
					open = append(open[:i], open[i+1:]...)
					break
				}
			}
			continue
		case provider.RoleAssistant, provider.RoleUser:
			bad = append(bad, open...)
			open = nil
		}
		for _, c := range m.ToolCalls {
			open = append(open, c.ID)
		}
	}
	return append(bad, open...)
}

// A child that dies while a tool runs leaves the tool_call record (and its
// "started" activity) in the session file, but no tool_result: the sink
// persists the call in ToolStarted and the result only in ToolFinished. The
// next child replays that call without an answer.
func TestReplayAfterCrashMidTool(t *testing.T) {
	root := t.TempDir()
	home, cwd := filepath.Join(root, "home"), filepath.Join(root, "work")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(root, "script.json")
	if err := os.WriteFile(script, []byte(`{"responses":[{"steps":[{"text":"looking"},`+
		toolCall("list_dir", map[string]string{"path": "."})+`]},{"steps":[{"text":"done"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "settings.toml"),
		[]byte("provider = \"fixture\"\n[providers.fixture]\nscript = \""+script+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	first, events, _ := poolIn(t, home, cwd)
	sid := op(t, first, dispatch.StartOp{ID: "r", Op: dispatch.OpCreate}).Attached
	runTurn(t, first, events, sid, "a go")
	first.Teardown(t.Context())

	// The file as a crash during list_dir leaves it: everything up to the
	// tool's "started" activity record (written before the tool runs).
	path := filepath.Join(home, "sessions", sid+".jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	cut := -1
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"type":"tool_call"`)) {
			for j := i + 1; j < len(lines); j++ {
				if bytes.Contains(lines[j], []byte(`"type":"activity"`)) {
					cut = j + 1
					break
				}
			}
			break
		}
	}
	if cut < 0 {
		t.Fatalf("no tool_call followed by its activity in:\n%s", data)
	}
	if err := os.WriteFile(path, bytes.Join(lines[:cut], nil), 0o600); err != nil {
		t.Fatal(err)
	}

	second, events2, rec := poolIn(t, home, cwd)
	op(t, second, dispatch.StartOp{ID: "r", Op: dispatch.OpOpen, Open: dispatch.OpenParams{SessionID: sid}})
	runTurn(t, second, events2, sid, "b go")
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) == 0 {
		t.Fatal("no provider request")
	}
	if bad := unansweredCalls(rec.reqs[0].Messages); len(bad) > 0 {
		t.Fatalf("replayed conversation has tool calls %q without a tool result", bad)
	}
}

// A tool name the model made up is untrusted model text. activityName lets
// any name in the ID grammar through, so a secret-shaped name reaches the
// activity frame unredacted (the stored activity is redacted later by the
// history projection, the live frame is not).
func TestModelToolNameRedacted(t *testing.T) {
	secret := "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	if redact.String(secret) == secret {
		t.Fatalf("precondition: %q is not secret-shaped for stages/redact", secret)
	}
	script := `{"responses":[{"steps":[` + toolCall(secret, map[string]string{}) + `]},{"steps":[{"text":"ok"}]}]}`
	p, events, sid, _ := agentPool(t, script, "", map[string]string{})
	for _, e := range runTurn(t, p, events, sid, "go") {
		if strings.Contains(e.ToolName, "abcdefghijklmnop") || strings.Contains(e.Summary, "abcdefghijklmnop") {
			t.Fatalf("%s frame echoes a secret-shaped model-made tool name: name %q summary %q", e.Name, e.ToolName, e.Summary)
		}
	}
}

// Same, inside a subagent: its tool calls go through subSink.ToolStarted ->
// Activity with the model's name.
func TestSubagentToolNameRedacted(t *testing.T) {
	secret := "ghp_Zq8Xw3Lm9Vt2Rk7Np4Hs6Jd1Fb5Gc0Ya8Ue3" // not the alphabet: gitleaks allowlists that as a placeholder
	script := `{"responses":[` +
		`{"steps":[` + toolCall("task", map[string]string{"profile": "explore", "prompt": "look"}) + `]},` +
		`{"steps":[` + toolCall(secret, map[string]string{}) + `]},` +
		`{"steps":[{"text":"sub answer"}]},{"steps":[{"text":"done"}]}]}`
	p, events, sid, _ := agentPool(t, script, "", map[string]string{
		"agents/explore.md": "---\ndescription: explores\ntools: [list_dir]\n---\nYou explore.\n",
	})
	for _, e := range runTurn(t, p, events, sid, "go") {
		if strings.Contains(e.ToolName, "abcdefghijklmnop") || strings.Contains(e.Summary, "abcdefghijklmnop") {
			t.Fatalf("%s frame echoes a secret-shaped model-made tool name: name %q", e.Name, e.ToolName)
		}
	}
}

// Sanity (passes): the run.finished revision pages the turn, and the pages
// hold neither the tool's raw result nor the tool_call arguments.
func TestPagesHideToolBodies(t *testing.T) {
	script := `{"responses":[{"steps":[` + toolCall("read_file", map[string]string{"path": "marker.txt"}) + `]},{"steps":[{"text":"done"}]}]}`
	p, events, sid, _ := agentPool(t, script, "", map[string]string{})
	if err := os.WriteFile(filepath.Join(p.runtime().runner.Cwd(), "marker.txt"), []byte("RAW-BODY-7f3a"), 0o600); err != nil {
		t.Fatal(err)
	}
	evs := runTurn(t, p, events, sid, "go")
	last := evs[len(evs)-1]
	if last.Name != protocol.EventRunFinished || last.Persistence != "durable" || !last.HasRevision {
		t.Fatalf("run.finished = %+v", last)
	}
	for _, e := range entries(t, p, last.Revision) {
		if strings.Contains(e.Text, "RAW-BODY") || strings.Contains(e.Text, "marker.txt") {
			t.Fatalf("history entry %s shows a raw tool body or argument: %q", e.Kind, e.Text)
		}
	}
}

// jumpClock moves one hour forward at every reading: any Wait offer that
// finds the event edge full expires at once (the output stalled for good).
type jumpClock struct{ n atomic.Int64 }

func (c *jumpClock) Now() time.Time {
	return time.Unix(0, 0).Add(time.Duration(c.n.Add(1)) * time.Hour)
}

func (c *jumpClock) NewTimer(time.Duration) (<-chan time.Time, func() bool) {
	fired := make(chan time.Time, 1)
	fired <- time.Time{}
	return fired, func() bool { return false }
}

// When the "started" activity of a tool call finds no room (output
// unavailable), ToolStarted has already persisted the tool_call record and
// runTool returns without ToolFinished: no tool_result is ever stored, yet
// the run_completed record is appended and run.finished says durable. The
// next turn replays an unanswered call.
func TestStalledActivityLeavesUnansweredCall(t *testing.T) {
	root := t.TempDir()
	home, cwd := filepath.Join(root, "home"), filepath.Join(root, "work")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(root, "script.json")
	if err := os.WriteFile(script, []byte(`{"responses":[{"steps":[`+
		toolCall("list_dir", map[string]string{"path": "."})+`]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "settings.toml"),
		[]byte("provider = \"fixture\"\n[providers.fixture]\nscript = \""+script+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	// Room for input.persisted only; the reader never reads.
	events := backpressure.NewMixed("run-events", 1, EventPolicy, &jumpClock{})
	p := NewPool(Options{
		NewID:  func() string { return "id-" + strconv.FormatInt(n.Add(1), 10) },
		Now:    time.Now,
		Events: events,
		Env:    runner.Env{MCHome: home, Cwd: cwd},
	})
	t.Cleanup(func() {
		p.Wait()
		p.Teardown(context.Background())
	})
	initDone := make(chan dispatch.InitDone, 1)
	p.StartInit(context.Background(), nil, func(d dispatch.InitDone) { initDone <- d })
	if d := <-initDone; d.Code != "" {
		t.Fatalf("init = %+v", d)
	}
	sid := op(t, p, dispatch.StartOp{ID: "r", Op: dispatch.OpCreate}).Attached
	done := make(chan struct{})
	p.StartTurn(context.Background(), "run-1", dispatch.TurnParams{SessionID: sid, Prompt: "go"}, func() { close(done) })
	<-done
	p.Wait()
	if e := <-events.C(); e.Name != protocol.EventInputPersisted {
		t.Fatalf("first event %s; want input.persisted", e.Name)
	}
	records, code := p.attachment().Replay()
	if code != "" {
		t.Fatalf("replay: %q", code)
	}
	completed := false
	for _, r := range records {
		completed = completed || r.Type == history.TypeRunCompleted
	}
	if !completed {
		t.Fatal("no run_completed record: precondition of the durable claim")
	}
	if bad := unansweredCalls(runner.Replay(records)); len(bad) > 0 {
		t.Fatalf("stored conversation has tool calls %q without a tool result (run.finished would say durable)", bad)
	}
}

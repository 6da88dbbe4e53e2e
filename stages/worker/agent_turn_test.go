package worker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/runner/agent"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/wire"
)

// recProvider records the requests of the child's provider.
type recProvider struct {
	p  provider.Provider
	mu sync.Mutex
	// reqs are copies: the runner reuses its message slice.
	reqs []provider.Request
}

func (r *recProvider) Stream(ctx context.Context, req provider.Request, emit func(provider.StreamEvent) error) error {
	req.Messages = slices.Clone(req.Messages)
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.p.Stream(ctx, req, emit)
}

// recordProvider makes the runtime p builds record its provider's requests.
func recordProvider(p *Pool) *recProvider {
	rec := &recProvider{}
	p.opts.Runner.WrapProvider = func(prov runner.Provider) runner.Provider {
		rec.p = prov
		return rec
	}
	return rec
}

// agentPool is startedPool with top-level settings, extra files under
// MC_HOME, and a recording provider.
func agentPool(t *testing.T, script, settings string, files map[string]string) (*Pool, chan wire.Event, string, *recProvider) {
	t.Helper()
	return agentPoolCaps(t, nil, script, settings, files)
}

// agentPoolCaps is agentPool initialized with required capabilities caps.
func agentPoolCaps(t *testing.T, caps []string, script, settings string, files map[string]string) (*Pool, chan wire.Event, string, *recProvider) {
	t.Helper()
	root := t.TempDir()
	home, cwd := filepath.Join(root, "home"), filepath.Join(root, "work")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(root, "script.json")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	files["settings.toml"] = "provider = \"fixture\"\n" + settings + "\n[providers.fixture]\nscript = \"" + path + "\"\n"
	for name, text := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, q := newTestPool(t)
	p.opts.Env = runner.Env{MCHome: home, Cwd: cwd}
	// The queue closes after the workers end (their last act may be to
	// offer run.finished).
	t.Cleanup(func() {
		waitPool(t, p)
		p.Teardown(context.Background())
		q.Close()
	})
	rec := recordProvider(p)
	initDone := make(chan dispatch.InitDone, 1)
	p.StartInit(context.Background(), caps, func(d dispatch.InitDone) { initDone <- d })
	if d := <-initDone; d.Code != "" {
		t.Fatalf("init = %+v", d)
	}
	opDone := make(chan dispatch.OpDone, 1)
	p.StartOp(context.Background(), dispatch.StartOp{ID: "r", Op: dispatch.OpCreate}, func(d dispatch.OpDone) { opDone <- d })
	d := <-opDone
	if d.Code != "" {
		t.Fatalf("create = %+v", d)
	}
	events := make(chan wire.Event, 1<<16)
	go func() {
		for e := range q.C() {
			events <- e
		}
		close(events)
	}()
	return p, events, d.Attached, rec
}

type pageEntry struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// entries returns the history entries of the attachment at revision.
func entries(t *testing.T, p *Pool, revision string) []pageEntry {
	t.Helper()
	page, code := p.attachment().Page(revision, nil)
	if code != "" {
		t.Fatalf("page: %q", code)
	}
	var res struct {
		Entries  []pageEntry `json:"entries"`
		Complete bool        `json:"complete"`
	}
	if err := json.Unmarshal(page, &res); err != nil || !res.Complete {
		t.Fatalf("page %s: %v", page, err)
	}
	return res.Entries
}

func activities(evs []wire.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Name == protocol.EventActivity {
			out = append(out, e.Kind+" "+e.ToolName+" "+e.State)
		}
	}
	return out
}

func TestTurnCompaction(t *testing.T) {
	script := `{"responses":[` +
		`{"steps":[{"text":"reply one"}]},` + // turn 1: nothing older to summarise
		`{"steps":[{"text":"SUMMARY-1"}]},{"steps":[{"text":"reply two"}]},` + // turn 2: compaction, answer
		`{"steps":[{"text":"SUMMARY-2"}]},{"steps":[{"text":"reply three"}]}]}` // turn 3
	// The built-in tool specs alone are over 80% of 100 tokens: every turn
	// with an older conversation compacts.
	p, events, sid, rec := agentPool(t, script, "context_window = 100", map[string]string{})
	first := "a first prompt " + strings.Repeat("x", 200)
	runTurn(t, p, events, sid, first)
	evs := runTurn(t, p, events, sid, "b second")
	if got := activities(evs); !slices.Equal(got, []string{"compaction compaction started", "compaction compaction completed"}) {
		t.Fatalf("activities %q", got)
	}
	if got := reconciled(evs); got != "reply two" {
		t.Fatalf("reconciled %q", got)
	}
	last := evs[len(evs)-1]
	if last.Outcome != "completed" || last.Persistence != "durable" {
		t.Fatalf("run.finished %+v", last)
	}
	var kinds []string
	for _, e := range entries(t, p, last.Revision) {
		kinds = append(kinds, e.Kind+":"+e.Text)
	}
	want := []string{"user:" + first, "assistant:reply one", "user:b second",
		"activity:compaction completed: summarised 2 messages", "compaction:SUMMARY-1", "assistant:reply two"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("history %q\nwant %q", kinds, want)
	}

	// Turn 3 replays from the stored summary: its compaction request holds
	// the summary, turn 2's kept prompt, its reply and the internal request
	// (which history never shows); turn 3's prompt is kept after it.
	evs = runTurn(t, p, events, sid, "c third")
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) != 5 {
		t.Fatalf("%d provider calls; want 5", len(rec.reqs))
	}
	if got := rec.reqs[4].Messages; len(got) != 2 || got[0].Text != agent.SummaryPrefix+"SUMMARY-2" || got[1].Text != "c third" {
		t.Fatalf("turn 3 answer request %+v", got)
	}
	if got := rec.reqs[2].Messages; len(got) != 2 || got[0].Text != agent.SummaryPrefix+"SUMMARY-1" || got[1].Text != "b second" {
		t.Fatalf("turn 2 answer request %+v", got)
	}
	got := rec.reqs[3].Messages
	if len(got) != 4 || got[0].Text != agent.SummaryPrefix+"SUMMARY-1" || got[1].Text != "b second" ||
		got[2].Text != "reply two" || got[3].Role != provider.RoleUser || !strings.HasPrefix(got[3].Text, "Summarise") {
		t.Fatalf("turn 3 compaction request %+v", got)
	}
	for _, e := range entries(t, p, evs[len(evs)-1].Revision) {
		if strings.Contains(e.Text, "Summarise the conversation") {
			t.Fatalf("internal prompt in history: %q", e.Text)
		}
	}
}

func TestTurnCancelDuringCompaction(t *testing.T) {
	script := `{"responses":[{"steps":[{"text":"one"}]},{"steps":[{"sleep_ms":600000}]}]}`
	p, events, sid, _ := agentPool(t, script, "context_window = 100", map[string]string{})
	runTurn(t, p, events, sid, "a first")
	done := make(chan struct{})
	p.StartTurn(context.Background(), "run-2", dispatch.TurnParams{SessionID: sid, Prompt: "b second"}, func() { close(done) })
	var evs []wire.Event
	for e := range events {
		evs = append(evs, e)
		if e.Name == protocol.EventActivity && e.State == "started" {
			p.CancelRun("run-2")
		}
		if e.Name == protocol.EventRunFinished {
			break
		}
	}
	<-done
	if got := activities(evs); !slices.Equal(got, []string{"compaction compaction started", "compaction compaction failed"}) {
		t.Fatalf("activities %q", got)
	}
	if last := evs[len(evs)-1]; last.Outcome != "cancelled" || last.Persistence != "durable" {
		t.Fatalf("run.finished %+v", last)
	}
}

func TestTurnSubagent(t *testing.T) {
	script := `{"responses":[` +
		`{"steps":[{"tool_call":{"name":"task","arguments":{"profile":"explore","prompt":"look"}}}]},` +
		`{"steps":[{"text":"sub secret words"},{"tool_call":{"name":"list_dir","arguments":{"path":"."}}}]},` +
		`{"steps":[{"text":"sub final answer"}]},` +
		`{"steps":[{"text":"primary done"}]},` +
		`{"steps":[{"tool_call":{"name":"task","arguments":{"profile":"explore","prompt":"again"}}}]},` +
		`{"steps":[{"text":"second answer"}]},{"steps":[{"text":"ok"}]}]}`
	files := map[string]string{
		"agents/explore.md": "---\ndescription: explores the tree\ntools: [list_dir, read_file]\n---\nYou explore.\n",
		"agents/hidden.md":  "---\ndescription: never offered\n---\nHidden.\n",
	}
	p, events, sid, rec := agentPool(t, script, "[agents]\ndisabled = [\"hidden\"]\n", files)
	evs := runTurn(t, p, events, sid, "a go")
	want := []string{"tool task started", "subagent explore started", "tool list_dir started", "tool list_dir completed",
		"subagent explore completed", "tool task completed"}
	if got := activities(evs); !slices.Equal(got, want) {
		t.Fatalf("activities %q\nwant %q", got, want)
	}
	for _, e := range evs {
		if strings.Contains(e.Text, "sub secret") || strings.Contains(e.Text, "sub final") {
			t.Fatalf("subagent text streamed as the primary's %s: %q", e.Name, e.Text)
		}
	}
	if got := reconciled(evs); got != "primary done" {
		t.Fatalf("reconciled %q", got)
	}
	rec.mu.Lock()
	task := rec.reqs[0].Tools[len(rec.reqs[0].Tools)-1]
	sub := rec.reqs[1]
	answer := rec.reqs[3].Messages
	rec.mu.Unlock()
	if task.Name != "task" || !strings.Contains(task.Description, "explore: explores the tree") || strings.Contains(task.Description, "hidden") {
		t.Fatalf("task tool %q: %q", task.Name, task.Description)
	}
	var subTools []string
	for _, s := range sub.Tools {
		subTools = append(subTools, s.Name)
	}
	if !slices.Equal(subTools, []string{"read_file", "list_dir"}) || !slices.Equal(sub.System, []string{"You explore.\n"}) {
		t.Fatalf("subagent tools %q, system %q", subTools, sub.System)
	}
	if n := len(answer); answer[n-1].Role != provider.RoleTool || answer[n-1].Text != "sub final answer" {
		t.Fatalf("task result %+v", answer[n-1])
	}
	scopes := p.attachment().TaskScopes()
	if !slices.Equal(scopes, []string{`{"profile":"explore","tools":["list_dir","read_file"]}`}) {
		t.Fatalf("task scopes %q", scopes)
	}
	last := evs[len(evs)-1]
	for _, e := range entries(t, p, last.Revision) {
		if strings.Contains(e.Text, "sub secret") {
			t.Fatalf("subagent text in history: %q", e.Text)
		}
	}
	// A second delegation to the same profile keeps the stored ceiling.
	runTurn(t, p, events, sid, "b again")
	if got := p.attachment().TaskScopes(); len(got) != 1 {
		t.Fatalf("task scopes after a second task %q", got)
	}
}

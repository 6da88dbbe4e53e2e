package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/magi-code/magi-code/runner/approval"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// recording wraps a provider and keeps a copy of every request.
type recording struct {
	p    provider.Provider
	reqs []provider.Request
}

func (r *recording) Stream(ctx context.Context, req provider.Request, emit func(provider.StreamEvent) error) error {
	req.Messages = slices.Clone(req.Messages)
	r.reqs = append(r.reqs, req)
	return r.p.Stream(ctx, req, emit)
}

func toolNames(specs []provider.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

func kinds(events []string, prefix string) []string {
	var out []string
	for _, e := range events {
		if strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}

// bigTool returns n bytes of output: it fills the context quickly.
type bigTool struct{ n int }

func (bigTool) Name() string                    { return "big" }
func (bigTool) Description() string             { return "big output" }
func (bigTool) Schema() json.RawMessage         { return json.RawMessage(`{"type":"object"}`) }
func (bigTool) Mutating() bool                  { return false }
func (bigTool) Describe(json.RawMessage) string { return "big" }
func (b bigTool) Run(context.Context, json.RawMessage) tools.Result {
	return tools.Result{Text: strings.Repeat("x", b.n), Summary: "big: ok"}
}

func TestCompaction(t *testing.T) {
	older := []Message{
		{Role: provider.RoleUser, Text: strings.Repeat("a", 400)},
		{Role: provider.RoleAssistant, Text: strings.Repeat("b", 400)},
	}
	tests := []struct {
		name     string
		history  []Message
		script   string
		window   int
		wantEv   []string // activity and compaction events, in order
		wantReqs [][]string
		wantOut  Outcome
	}{
		{
			name:    "start of turn keeps the prompt",
			history: older,
			script:  `{"responses":[{"steps":[{"text":"SUM"}]},{"steps":[{"text":"answer"}]}]}`,
			window:  200, // 800 bytes of history is over 80% of 200 tokens
			wantEv: []string{
				"activity id-1 compaction compaction started compacting 2 messages",
				`compaction "SUM" kept=["user:now"]`,
				"activity id-1 compaction compaction completed summarised 2 messages",
			},
			wantReqs: [][]string{
				{"user:" + older[0].Text, "assistant:" + older[1].Text, "user:" + compactPrompt},
				{"user:" + SummaryPrefix + "SUM", "user:now"},
			},
			wantOut: Completed,
		},
		{
			name:   "under the threshold nothing happens",
			script: `{"responses":[{"steps":[{"text":"answer"}]}]}`,
			window: 100_000, history: older,
			wantReqs: [][]string{{"user:" + older[0].Text, "assistant:" + older[1].Text, "user:now"}},
			wantOut:  Completed,
		},
		{
			name:   "mid-turn folds the whole turn",
			script: `{"responses":[{"steps":[{"tool_call":{"name":"big","arguments":{}}}]},{"steps":[{"text":"SUM2"}]},{"steps":[{"text":"answer"}]}]}`,
			window: 200,
			wantEv: []string{
				"activity id-2 compaction compaction started compacting 3 messages",
				`compaction "SUM2" kept=[]`,
				"activity id-2 compaction compaction completed summarised 3 messages",
			},
			wantReqs: [][]string{
				{"user:now"},
				{"user:now", "assistant: [call_1 big]", "tool:" + strings.Repeat("x", 1000) + " <call_1 big>", "user:" + compactPrompt},
				{"user:" + SummaryPrefix + "SUM2"},
			},
			wantOut: Completed,
		},
		{
			name:    "failure goes on uncompacted, once",
			history: older,
			script:  `{"responses":[{"steps":[{"error":"execution_failed"}]},{"steps":[{"tool_call":{"name":"big","arguments":{}}}]},{"steps":[{"text":"answer"}]}]}`,
			window:  200,
			wantEv: []string{
				"activity id-1 compaction compaction started compacting 2 messages",
				"activity id-1 compaction compaction failed compaction failed",
			},
			wantReqs: [][]string{
				{"user:" + older[0].Text, "assistant:" + older[1].Text, "user:" + compactPrompt},
				{"user:" + older[0].Text, "assistant:" + older[1].Text, "user:now"},
				{"user:" + older[0].Text, "assistant:" + older[1].Text, "user:now", "assistant: [call_1 big]", "tool:" + strings.Repeat("x", 1000) + " <call_1 big>"},
			},
			wantOut: Completed,
		},
		{
			name:    "empty summary fails",
			history: older,
			script:  `{"responses":[{"steps":[{"text":"  "}]},{"steps":[{"text":"answer"}]}]}`,
			window:  200,
			wantEv: []string{
				"activity id-1 compaction compaction started compacting 2 messages",
				"activity id-1 compaction compaction failed compaction failed",
			},
			wantReqs: [][]string{
				{"user:" + older[0].Text, "assistant:" + older[1].Text, "user:" + compactPrompt},
				{"user:" + older[0].Text, "assistant:" + older[1].Text, "user:now"},
			},
			wantOut: Completed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recording{p: fixtureprov.New(parse(t, tt.script))}
			cfg := Config{Provider: rec, Model: "m", Tools: tools.NewSet(bigTool{1000}), ContextWindow: tt.window, Approval: ApprovalAuto}
			sink := &recorder{}
			res, err := Run(context.Background(), cfg, tt.history, "now", sink)
			if res.Outcome != tt.wantOut {
				t.Fatalf("Run = %s, %v", res.Outcome, err)
			}
			var got []string
			for _, e := range sink.events {
				if strings.HasPrefix(e, "activity") || strings.HasPrefix(e, "compaction") {
					got = append(got, e)
				}
			}
			if !reflect.DeepEqual(got, tt.wantEv) {
				t.Errorf("events %q\nwant %q", got, tt.wantEv)
			}
			var reqs [][]string
			for _, r := range rec.reqs {
				reqs = append(reqs, roles(r.Messages))
			}
			if !reflect.DeepEqual(reqs, tt.wantReqs) {
				t.Errorf("requests %q\nwant %q", reqs, tt.wantReqs)
			}
			// The turn's own messages are what it added, compaction aside.
			if res.Messages[0].Text != "now" {
				t.Errorf("result messages %q", roles(res.Messages))
			}
		})
	}
}

func TestCancelDuringCompaction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sc := parse(t, `{"responses":[{"steps":[{"text":"partial sum"},{"sleep_ms":600000}]}]}`)
		cfg := Config{Provider: fixtureprov.New(sc), ContextWindow: 10}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		time.AfterFunc(time.Second, cancel)
		sink := &recorder{}
		start := time.Now()
		res, err := Run(ctx, cfg, []Message{{Role: provider.RoleUser, Text: strings.Repeat("a", 100)}}, "now", sink)
		if !errors.Is(err, ErrCancelled) || res.Outcome != Cancelled {
			t.Fatalf("Run = %s, %v; want cancelled", res.Outcome, err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("returned after %v", d)
		}
		want := []string{
			"activity id-1 compaction compaction started compacting 1 messages",
			"activity id-1 compaction compaction failed compaction cancelled",
		}
		if !reflect.DeepEqual(sink.events, want) {
			t.Errorf("events %q; want %q", sink.events, want)
		}
	})
}

func TestContextWindowFor(t *testing.T) {
	tests := []struct {
		model      string
		configured int
		want       int
	}{
		{"fixture-model", 0, DefaultContextWindow},
		{"fixture-model", 5000, 5000},
		{"llama3.2", 0, DefaultContextWindow},
		// From the bundled catalog, not a table of families: the old
		// table said 400,000 for every gpt-5*, 200,000 for claude*.
		{"gpt-5.4", 0, 1_050_000},
		{"gpt-5-mini", 0, 400_000},
		{"gpt-4o", 0, 128_000},
		{"claude-opus-4-7", 0, 1_000_000},
		{"claude-sonnet-4-5", 0, 200_000}, // the dated snapshot's
		{"claude-sonnet-4-5-2025", 0, DefaultContextWindow},
		{"gpt-5.4", 7000, 7000},
		{"claude", 0, DefaultContextWindow},
		{"", 0, DefaultContextWindow},
	}
	for _, tt := range tests {
		if got := ContextWindowFor(tt.model, tt.configured); got != tt.want {
			t.Errorf("ContextWindowFor(%q, %d) = %d; want %d", tt.model, tt.configured, got, tt.want)
		}
	}
}

func TestSubagents(t *testing.T) {
	explore := Subagent{Name: "explore", Description: "reads code", Tools: []string{"read_file", "grep", "shell"}, Prompt: "you explore", Model: "small"}
	taskCall := func(profile string) string {
		return `{"tool_call":{"name":"task","arguments":{"profile":"` + profile + `","prompt":"look around"}}}`
	}
	subWork := `{"steps":[{"text":"sub secret text"},{"tool_call":{"name":"read_file","arguments":{"path":"f.txt"}}}]},{"steps":[{"text":"found: hello"}]}`
	tests := []struct {
		name       string
		subagents  []Subagent
		scopes     []string
		script     string
		wantTools  []string // tools of the primary's first request
		wantSub    []string // tools of the subagent's first request; nil: no subagent ran
		wantAct    []string
		wantScope  []string
		wantResult string // the task tool's result the primary sees
	}{
		{
			name:      "no profiles, no task tool",
			script:    `{"responses":[{"steps":[{"text":"hi"}]}]}`,
			wantTools: []string{"read_file", "write_file", "edit_file", "list_dir", "grep", "shell"},
		},
		{
			name:       "subagent runs with its own context and tools",
			subagents:  []Subagent{explore},
			script:     `{"responses":[{"steps":[` + taskCall("explore") + `]},` + subWork + `,{"steps":[{"text":"done"}]}]}`,
			wantTools:  []string{"read_file", "write_file", "edit_file", "list_dir", "grep", "shell", "task"},
			wantSub:    []string{"read_file", "grep", "shell"},
			wantScope:  []string{`scope {"profile":"explore","tools":["grep","read_file","shell"]}`},
			wantResult: "found: hello",
			wantAct: []string{
				"activity id-2 subagent explore started subagent explore: started",
				"activity id-4 tool read_file started read_file: started",
				"activity id-4 tool read_file completed read_file: 1 lines",
				"activity id-2 subagent explore completed subagent explore: completed",
			},
		},
		{
			name:       "stored ceiling is honoured, never widened",
			subagents:  []Subagent{explore},
			scopes:     []string{`{"profile":"explore","tools":["grep","read_file"]}`, `{"profile":"other","tools":[]}`},
			script:     `{"responses":[{"steps":[` + taskCall("explore") + `]},` + subWork + `,{"steps":[{"text":"done"}]}]}`,
			wantTools:  []string{"read_file", "write_file", "edit_file", "list_dir", "grep", "shell", "task"},
			wantSub:    []string{"read_file", "grep"},
			wantResult: "found: hello",
			wantAct: []string{
				"activity id-2 subagent explore started subagent explore: started",
				"activity id-4 tool read_file started read_file: started",
				"activity id-4 tool read_file completed read_file: 1 lines",
				"activity id-2 subagent explore completed subagent explore: completed",
			},
		},
		{
			name:       "unparseable ceiling fails closed",
			subagents:  []Subagent{explore},
			scopes:     []string{`explore:read_file`},
			script:     `{"responses":[{"steps":[` + taskCall("explore") + `]},{"steps":[{"text":"no tools"}]},{"steps":[{"text":"done"}]}]}`,
			wantTools:  []string{"read_file", "write_file", "edit_file", "list_dir", "grep", "shell", "task"},
			wantSub:    []string{},
			wantScope:  []string{`scope {"profile":"explore","tools":[]}`},
			wantResult: "no tools",
			wantAct: []string{
				"activity id-2 subagent explore started subagent explore: started",
				"activity id-2 subagent explore completed subagent explore: completed",
			},
		},
		{
			name:       "a profile that is not enabled is refused",
			subagents:  []Subagent{explore},
			script:     `{"responses":[{"steps":[` + taskCall("disabled-one") + `]},{"steps":[{"text":"done"}]}]}`,
			wantTools:  []string{"read_file", "write_file", "edit_file", "list_dir", "grep", "shell", "task"},
			wantResult: "task: no enabled subagent profile of that name",
		},
		{
			name:       "a failing subagent is an error result",
			subagents:  []Subagent{explore},
			script:     `{"responses":[{"steps":[` + taskCall("explore") + `]},{"steps":[{"text":"half"},{"error":"execution_failed"}]},{"steps":[{"text":"done"}]}]}`,
			wantTools:  []string{"read_file", "write_file", "edit_file", "list_dir", "grep", "shell", "task"},
			wantSub:    []string{"read_file", "grep", "shell"},
			wantScope:  []string{`scope {"profile":"explore","tools":["grep","read_file","shell"]}`},
			wantResult: "task failed (execution_failed); partial answer: half",
			wantAct: []string{
				"activity id-2 subagent explore started subagent explore: started",
				"activity id-2 subagent explore failed subagent explore: failed (execution_failed)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("hello\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			rec := &recording{p: fixtureprov.New(parse(t, tt.script))}
			cfg := testConfig(t, nil, dir)
			cfg.Provider, cfg.Subagents, cfg.TaskScopes = rec, tt.subagents, tt.scopes
			sink := &recorder{}
			res, err := Run(context.Background(), cfg, nil, "go", sink)
			if err != nil || res.Outcome != Completed {
				t.Fatalf("Run = %s, %v", res.Outcome, err)
			}
			if got := toolNames(rec.reqs[0].Tools); !reflect.DeepEqual(got, tt.wantTools) {
				t.Errorf("primary tools %q; want %q", got, tt.wantTools)
			}
			if tt.wantSub != nil {
				sub := rec.reqs[1]
				if got := toolNames(sub.Tools); !slices.Equal(got, tt.wantSub) {
					t.Errorf("subagent tools %q; want %q", got, tt.wantSub)
				}
				if sub.Model != "small" || !reflect.DeepEqual(sub.System, []string{"you explore"}) ||
					!reflect.DeepEqual(roles(sub.Messages), []string{"user:look around"}) {
					t.Errorf("subagent request %q %q %q", sub.Model, sub.System, roles(sub.Messages))
				}
			}
			if got := kinds(sink.events, "activity"); !reflect.DeepEqual(got, tt.wantAct) {
				t.Errorf("activities %q\nwant %q", got, tt.wantAct)
			}
			if got := kinds(sink.events, "scope"); !reflect.DeepEqual(got, tt.wantScope) {
				t.Errorf("scopes %q; want %q", got, tt.wantScope)
			}
			for _, e := range sink.events {
				if strings.Contains(e, "sub secret") {
					t.Errorf("subagent text reached the primary sink: %q", e)
				}
			}
			if tt.wantResult != "" {
				var got string
				for _, m := range res.Messages {
					if m.Role == provider.RoleTool && m.ToolName == TaskToolName {
						got = m.Text
					}
				}
				if got != tt.wantResult {
					t.Errorf("task result %q; want %q", got, tt.wantResult)
				}
			}
			if len(tt.subagents) > 0 {
				desc := rec.reqs[0].Tools[len(rec.reqs[0].Tools)-1].Description
				if !strings.Contains(desc, "- explore: reads code") || strings.Contains(desc, "disabled") {
					t.Errorf("task description %q", desc)
				}
			}
		})
	}
}

func TestSubagentApprovalAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"task","arguments":{"profile":"w","prompt":"write"}}}]},`+
			`{"steps":[{"tool_call":{"name":"write_file","arguments":{"path":"m","content":"x"}}}]}]}`)
		cfg := testConfig(t, sc, dir)
		cfg.Subagents = []Subagent{{Name: "w", Tools: []string{"write_file"}}}
		ap := &approver{block: true}
		cfg.Approver = ap
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		time.AfterFunc(time.Second, cancel)
		sink := &recorder{}
		res, err := Run(ctx, cfg, nil, "go", sink)
		if !errors.Is(err, ErrCancelled) || res.Outcome != Cancelled {
			t.Fatalf("Run = %s, %v; want cancelled", res.Outcome, err)
		}
		if len(ap.asked) != 1 || !strings.HasPrefix(ap.asked[0], "write_file|") {
			t.Errorf("asked %q; want the subagent's write_file", ap.asked)
		}
		want := []string{
			"activity id-2 subagent w started subagent w: started",
			"activity id-3 tool write_file started write_file: started",
			"activity id-3 tool write_file failed write_file: cancelled",
			"activity id-2 subagent w failed subagent w: cancelled",
		}
		if got := kinds(sink.events, "activity"); !reflect.DeepEqual(got, want) {
			t.Errorf("activities %q\nwant %q", got, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "m")); err == nil {
			t.Error("write ran")
		}
	})
}

func TestSubagentSinkFailureStopsRun(t *testing.T) {
	sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"task","arguments":{"profile":"p","prompt":"x"}}}]},{"steps":[{"text":"a"}]},{"steps":[{"text":"never"}]}]}`)
	cfg := testConfig(t, sc, t.TempDir())
	cfg.Subagents = []Subagent{{Name: "p"}}
	sink := &recorder{failOn: "Activity", failErr: errors.New("edge full")}
	res, err := Run(context.Background(), cfg, nil, "go", sink)
	if res.Outcome != Failed || res.Code != "output_unavailable" {
		t.Fatalf("Run = %s %q, %v; want failed output_unavailable", res.Outcome, res.Code, err)
	}
}

// fakeHooks records calls and answers as configured.
type fakeHooks struct {
	block           bool
	reason          string
	preErr, postErr error
	stopErr         error
	calls           []string
}

func (h *fakeHooks) PreToolUse(ctx context.Context, tool string, args json.RawMessage) (bool, string, error) {
	h.calls = append(h.calls, "pre "+tool)
	return h.block, h.reason, h.preErr
}

func (h *fakeHooks) PostToolUse(ctx context.Context, tool string, args json.RawMessage, result string, isError bool) error {
	h.calls = append(h.calls, "post "+tool)
	return h.postErr
}

func (h *fakeHooks) Stop(ctx context.Context, outcome Outcome) error {
	h.calls = append(h.calls, "stop "+string(outcome))
	return h.stopErr
}

func TestHooks(t *testing.T) {
	write := `{"responses":[{"steps":[{"tool_call":{"name":"write_file","arguments":{"path":"marker","content":"x"}}}]},{"steps":[{"text":"ok"}]}]}`
	hookErr := errors.New("hook exited 3")
	tests := []struct {
		name      string
		hooks     *fakeHooks
		sinkFail  string
		wantCalls []string
		wantDone  string // the ToolFinished line
		wantDiag  []string
		marker    bool
		wantOut   Outcome
	}{
		{
			name:      "allow",
			hooks:     &fakeHooks{},
			wantCalls: []string{"pre write_file", "post write_file", "stop completed"},
			wantDone:  `done id-1 write_file: 1 bytes written "write_file: 1 bytes written\n+ x" err=false failed=false`,
			marker:    true,
			wantOut:   Completed,
		},
		{
			name:      "block",
			hooks:     &fakeHooks{block: true, reason: "no writes on Fridays"},
			wantCalls: []string{"pre write_file", "stop completed"},
			wantDone:  `done id-1 write_file: blocked by hook "blocked by hook: no writes on Fridays" err=true failed=true`,
			wantOut:   Completed,
		},
		{
			name:      "failing hooks are diagnostics",
			hooks:     &fakeHooks{block: true, preErr: hookErr, postErr: hookErr, stopErr: hookErr},
			wantCalls: []string{"pre write_file", "post write_file", "stop completed"},
			wantDone:  `done id-1 write_file: 1 bytes written "write_file: 1 bytes written\n+ x" err=false failed=false`,
			wantDiag: []string{
				"diag hook_failed write_file: pre_tool_use hook failed",
				"diag hook_failed write_file: post_tool_use hook failed",
				"diag hook_failed stop hook failed",
			},
			marker:  true,
			wantOut: Completed,
		},
		{
			name:      "undeliverable diagnostic fails the run",
			hooks:     &fakeHooks{stopErr: hookErr},
			sinkFail:  "Diagnostic",
			wantCalls: []string{"pre write_file", "post write_file", "stop completed"},
			wantDone:  `done id-1 write_file: 1 bytes written "write_file: 1 bytes written\n+ x" err=false failed=false`,
			wantDiag:  []string{"diag hook_failed stop hook failed"},
			marker:    true,
			wantOut:   Failed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := testConfig(t, parse(t, write), dir)
			cfg.Approval, cfg.Hooks = ApprovalAuto, tt.hooks
			sink := &recorder{failOn: tt.sinkFail, failErr: errors.New("edge full")}
			res, err := Run(context.Background(), cfg, nil, "go", sink)
			if res.Outcome != tt.wantOut {
				t.Fatalf("Run = %s, %v; want %s", res.Outcome, err, tt.wantOut)
			}
			if !reflect.DeepEqual(tt.hooks.calls, tt.wantCalls) {
				t.Errorf("hook calls %q; want %q", tt.hooks.calls, tt.wantCalls)
			}
			if got := kinds(sink.events, "done"); !reflect.DeepEqual(got, []string{tt.wantDone}) {
				t.Errorf("done %q; want %q", got, tt.wantDone)
			}
			if got := kinds(sink.events, "diag"); !reflect.DeepEqual(got, tt.wantDiag) {
				t.Errorf("diagnostics %q; want %q", got, tt.wantDiag)
			}
			if _, err := os.Stat(filepath.Join(dir, "marker")); (err == nil) != tt.marker {
				t.Errorf("marker exists = %v; want %v", err == nil, tt.marker)
			}
		})
	}
}

// TestStopHookNotRunOnCancel: a cancelled run starts no stop hook (it
// would only delay run.finished and the closing drain).
func TestStopHookNotRunOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig(t, parse(t, `{"responses":[{"steps":[{"sleep_ms":600000}]}]}`), t.TempDir())
		h := &fakeHooks{}
		cfg.Hooks = h
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		time.AfterFunc(time.Second, cancel)
		if res, _ := Run(ctx, cfg, nil, "go", &recorder{}); res.Outcome != Cancelled {
			t.Fatalf("outcome %s", res.Outcome)
		}
		if len(h.calls) != 0 {
			t.Errorf("hook calls %q after cancellation; want none", h.calls)
		}
	})
}

// blockingStop is a stop hook that waits for its ctx, as a hanging hook
// whose process group the runner kills on cancellation.
type blockingStop struct {
	fakeHooks
	started chan struct{}
}

func (h *blockingStop) Stop(ctx context.Context, outcome Outcome) error {
	h.calls = append(h.calls, "stop "+string(outcome))
	close(h.started)
	<-ctx.Done()
	return ctx.Err()
}

// TestCancelDuringStopHook: cancelling while the stop hook of a completed
// run runs reaches the hook (its ctx ends) and ends the run cancelled,
// without a hook-failure diagnostic.
func TestCancelDuringStopHook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig(t, parse(t, `{"responses":[{"steps":[{"text":"done"}]}]}`), t.TempDir())
		h := &blockingStop{started: make(chan struct{})}
		cfg.Hooks = h
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { <-h.started; cancel() }()
		sink := &recorder{}
		res, err := Run(ctx, cfg, nil, "go", sink)
		if res.Outcome != Cancelled || !errors.Is(err, ErrCancelled) {
			t.Fatalf("Run = %s, %v; want cancelled", res.Outcome, err)
		}
		if !reflect.DeepEqual(h.calls, []string{"stop completed"}) {
			t.Errorf("hook calls %q", h.calls)
		}
		if got := kinds(sink.events, "diag"); got != nil {
			t.Errorf("diagnostics %q for a cancelled stop hook", got)
		}
	})
}

// guarded is a tool that forces approval for "danger" arguments.
type guarded struct{ ran *int }

func (guarded) Name() string                    { return "guarded" }
func (guarded) Description() string             { return "guarded" }
func (guarded) Schema() json.RawMessage         { return json.RawMessage(`{"type":"object"}`) }
func (guarded) Mutating() bool                  { return false }
func (guarded) Describe(json.RawMessage) string { return "guarded call" }
func (g guarded) Run(context.Context, json.RawMessage) tools.Result {
	*g.ran++
	return tools.Result{Text: "ran", Summary: "guarded: ran"}
}
func (guarded) ForceApproval(args json.RawMessage) (bool, string) {
	if strings.Contains(string(args), "danger") {
		return true, "destructive command"
	}
	return false, ""
}

func TestForceApproval(t *testing.T) {
	tests := []struct {
		name      string
		args      string
		approval  string
		allow     bool
		wantAsked []string
		wantRan   int
	}{
		{"forced under auto, denied", `{"x":"danger"}`, ApprovalAuto, false, []string{"guarded|protected: destructive command: guarded call"}, 0},
		{"forced under auto, allowed", `{"x":"danger"}`, ApprovalAuto, true, []string{"guarded|protected: destructive command: guarded call"}, 1},
		{"look-alike not forced", `{"x":"safe"}`, ApprovalAuto, false, nil, 1},
		{"forced under ask", `{"x":"danger"}`, ApprovalAsk, false, []string{"guarded|protected: destructive command: guarded call"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran := 0
			sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"guarded","arguments":`+tt.args+`}}]},{"steps":[{"text":"ok"}]}]}`)
			ap := &approver{allow: tt.allow}
			cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(guarded{&ran}), Approval: tt.approval, Approver: ap}
			if _, err := Run(context.Background(), cfg, nil, "go", &recorder{}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ap.asked, tt.wantAsked) || ran != tt.wantRan {
				t.Errorf("asked %q, ran %d; want %q, %d", ap.asked, ran, tt.wantAsked, tt.wantRan)
			}
		})
	}
}

// program reports two inner calls through the Reporter, the second after
// an approval, as Code Mode does.
type program struct{}

func (program) Name() string                    { return "run_code" }
func (program) Description() string             { return "program" }
func (program) Schema() json.RawMessage         { return json.RawMessage(`{"type":"object"}`) }
func (program) Mutating() bool                  { return false }
func (program) Describe(json.RawMessage) string { return "program" }
func (program) Run(ctx context.Context, _ json.RawMessage) tools.Result {
	rep := ReporterFrom(ctx)
	if rep == nil {
		return tools.Result{Text: "no reporter", IsError: true}
	}
	id, err := rep.Start("read_file", "read_file: started")
	if err != nil {
		return tools.Result{Text: "start failed", IsError: true}
	}
	if err := rep.Finish(id, "read_file", false, "read_file: 3 lines"); err != nil {
		return tools.Result{Text: "finish failed", IsError: true}
	}
	d, _ := rep.Approve(ctx, "write_file", "from code: write_file x")
	id, _ = rep.Start("write_file", "write_file: started")
	_ = rep.Finish(id, "write_file", d != approval.Allowed, "write_file: denied by user")
	return tools.Result{Text: "ten lines", Summary: "run_code: ok"}
}

func TestReporter(t *testing.T) {
	sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"run_code","arguments":{}}}]},{"steps":[{"text":"ok"}]}]}`)
	ap := &approver{allow: false}
	cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(program{}), Approver: ap}
	sink := &recorder{}
	res, err := Run(context.Background(), cfg, nil, "go", sink)
	if err != nil || res.Activities != 3 {
		t.Fatalf("Run = %d activities, %v", res.Activities, err)
	}
	want := []string{
		"activity id-2 tool read_file started read_file: started",
		"activity id-2 tool read_file completed read_file: 3 lines",
		"activity id-3 tool write_file started write_file: started",
		"activity id-3 tool write_file failed write_file: denied by user",
	}
	if got := kinds(sink.events, "activity"); !reflect.DeepEqual(got, want) {
		t.Errorf("activities %q\nwant %q", got, want)
	}
	if !reflect.DeepEqual(ap.asked, []string{"write_file|from code: write_file x"}) {
		t.Errorf("asked %q", ap.asked)
	}
	if ReporterFrom(context.Background()) != nil {
		t.Error("reporter outside a tool call")
	}
}

// cancellingHooks cancels the run from inside PreToolUse and fails as a
// cancelled hook does.
type cancellingHooks struct {
	fakeHooks
	cancel context.CancelFunc
}

func (h *cancellingHooks) PreToolUse(ctx context.Context, tool string, args json.RawMessage) (bool, string, error) {
	h.cancel()
	return false, "", ctx.Err()
}

func TestCancelDuringPreToolUse(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"write_file","arguments":{"path":"marker","content":"x"}}}]}]}`), dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := &cancellingHooks{cancel: cancel}
	cfg.Approval, cfg.Hooks = ApprovalAuto, h
	sink := &recorder{}
	res, err := Run(ctx, cfg, nil, "go", sink)
	if !errors.Is(err, ErrCancelled) || res.Outcome != Cancelled {
		t.Fatalf("Run = %s, %v", res.Outcome, err)
	}
	if got := kinds(sink.events, "diag"); got != nil {
		t.Errorf("diagnostics %q for a cancelled hook", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
		t.Error("tool ran after cancellation")
	}
	if len(h.calls) != 0 {
		t.Errorf("hook calls %q; want no stop hook after cancellation", h.calls)
	}
}

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/magi-code/magi-code/internal/proctest"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/approval"
	"github.com/magi-code/magi-code/runner/fixture"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a Sink that renders every call as one line.
type recorder struct {
	events []string
	// failOn makes the named callback return failErr.
	failOn  string
	failErr error
	// onDelta runs on each TextDelta (after recording).
	onDelta func(text string)
	// text counts delta bytes instead of recording each delta when quiet.
	quiet      bool
	deltaBytes int
}

func (r *recorder) fail(name string) error {
	if r.failOn == name {
		return r.failErr
	}
	return nil
}

func (r *recorder) SegmentStart(id string) { r.events = append(r.events, "start "+id) }
func (r *recorder) TextDelta(id, text string) error {
	r.deltaBytes += len(text)
	if !r.quiet {
		r.events = append(r.events, "delta "+id+" "+text)
	}
	if r.onDelta != nil {
		r.onDelta(text)
	}
	return r.fail("TextDelta")
}
func (r *recorder) SegmentEnd(id, full string) error {
	if r.quiet {
		full = strconv.Itoa(len(full)) + " bytes"
	}
	r.events = append(r.events, "end "+id+" "+full)
	return r.fail("SegmentEnd")
}
func (r *recorder) ReasoningSummary(id, text string) error {
	r.events = append(r.events, "summary "+id+" "+text)
	return r.fail("ReasoningSummary")
}
func (r *recorder) ToolStarted(id, name, summary string, call ToolCall) error {
	if !r.quiet {
		r.events = append(r.events, "tool "+id+" "+name+" "+call.ID+" "+summary)
	}
	return r.fail("ToolStarted")
}
func (r *recorder) ToolFinished(id, name, summary, result string, isError, failed bool) error {
	if !r.quiet {
		r.events = append(r.events, fmt.Sprintf("done %s %s %q err=%v failed=%v", id, summary, result, isError, failed))
	}
	return r.fail("ToolFinished")
}

func (r *recorder) Activity(id, kind, name, state, summary string) error {
	r.events = append(r.events, "activity "+id+" "+kind+" "+name+" "+state+" "+summary)
	return r.fail("Activity")
}
func (r *recorder) Diagnostic(code, summary string) error {
	r.events = append(r.events, "diag "+code+" "+summary)
	return r.fail("Diagnostic")
}
func (r *recorder) Compaction(summary string, kept []Message) error {
	r.events = append(r.events, fmt.Sprintf("compaction %q kept=%q", summary, roles(kept)))
	return r.fail("Compaction")
}
func (r *recorder) TaskScope(ceiling string) error {
	r.events = append(r.events, "scope "+ceiling)
	return r.fail("TaskScope")
}

// approver answers with allow, counting requests; with block, it waits for
// ctx to end.
// With expire, nobody answers in time.
type approver struct {
	allow  bool
	block  bool
	expire bool
	err    error
	mu     sync.Mutex
	asked  []string
}

func (a *approver) Approve(ctx context.Context, name, summary string) (approval.Decision, error) {
	a.mu.Lock()
	a.asked = append(a.asked, name+"|"+summary)
	a.mu.Unlock()
	switch {
	case a.block:
		<-ctx.Done()
		return approval.Cancelled, ctx.Err()
	case a.expire:
		return approval.Expired, a.err
	case a.allow:
		return approval.Allowed, a.err
	}
	return approval.Denied, a.err
}

func parse(t testing.TB, s string) *fixture.Script {
	t.Helper()
	sc, err := fixture.Parse([]byte(s))
	if err != nil {
		t.Fatalf("script %s: %v", s, err)
	}
	return sc
}

func testConfig(t testing.TB, sc *fixture.Script, dir string) Config {
	return Config{
		Provider: fixtureprov.New(sc),
		Model:    "fixture-model",
		System:   []string{"be brief"},
		Tools:    tools.Builtin(tools.Options{Cwd: dir}),
		Approval: ApprovalAsk,
	}
}

func roles(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		s := m.Role + ":" + m.Text
		for _, c := range m.ToolCalls {
			s += " [" + c.ID + " " + c.Name + "]"
		}
		if m.ToolCallID != "" {
			s += " <" + m.ToolCallID + " " + m.ToolName + ">"
		}
		out = append(out, s)
	}
	return out
}

func TestRun(t *testing.T) {
	marker := `{"tool_call":{"name":"shell","arguments":{"command":"touch marker && echo made"}}}`
	tests := []struct {
		name      string
		script    string // "" for none
		approval  string
		approver  *approver
		sinkFail  string
		sinkErr   error
		wantOut   Outcome
		wantCode  protocol.Code
		wantEv    []string
		wantMsgs  []string
		wantAsked int
		marker    bool // the marker file exists afterwards
	}{
		{
			name:     "echo without script",
			wantOut:  Completed,
			wantEv:   []string{"start id-1", "delta id-1 echo: hello", "end id-1 echo: hello"},
			wantMsgs: []string{"user:hello", "assistant:echo: hello"},
		},
		{
			name:     "text and summary",
			script:   `{"responses":[{"steps":[{"reasoning_summary":"plan"},{"text":"Hel"},{"text":"lo","repeat":2}]}]}`,
			wantOut:  Completed,
			wantEv:   []string{"summary id-1 plan", "start id-2", "delta id-2 Hel", "delta id-2 lo", "delta id-2 lo", "end id-2 Hellolo"},
			wantMsgs: []string{"user:hello", "assistant:Hellolo"},
		},
		{
			name:      "approved shell runs",
			script:    `{"responses":[{"steps":[{"text":"let me"},` + marker + `]},{"steps":[{"text":"done"}]}]}`,
			approver:  &approver{allow: true},
			wantOut:   Completed,
			wantAsked: 1,
			marker:    true,
			wantEv: []string{
				"start id-1", "delta id-1 let me", "end id-1 let me",
				"tool id-2 shell call_1 shell: started",
				`done id-2 shell: exit 0 "made\n" err=false failed=false`,
				"start id-3", "delta id-3 done", "end id-3 done",
			},
			wantMsgs: []string{"user:hello", "assistant:let me [call_1 shell]", "tool:made\n <call_1 shell>", "assistant:done"},
		},
		{
			name:      "denied shell never runs",
			script:    `{"responses":[{"steps":[` + marker + `]},{"steps":[{"text":"ok"}]}]}`,
			approver:  &approver{allow: false},
			wantOut:   Completed,
			wantAsked: 1,
			wantEv: []string{
				"tool id-1 shell call_1 shell: started",
				`done id-1 shell: denied by user "denied by user" err=true failed=true`,
				"start id-2", "delta id-2 ok", "end id-2 ok",
			},
			wantMsgs: []string{"user:hello", "assistant: [call_1 shell]", "tool:denied by user <call_1 shell>", "assistant:ok"},
		},
		{
			name:     "no approver refuses",
			script:   `{"responses":[{"steps":[` + marker + `]}]}`,
			wantOut:  Completed,
			wantEv:   []string{"tool id-1 shell call_1 shell: started", `done id-1 shell: refused: nobody to approve the call "refused: nobody to approve the call" err=true failed=true`, "start id-2", "delta id-2 echo: hello", "end id-2 echo: hello"},
			wantMsgs: []string{"user:hello", "assistant: [call_1 shell]", "tool:refused: nobody to approve the call <call_1 shell>", "assistant:echo: hello"},
		},
		{
			name:     "auto approval asks nobody",
			script:   `{"responses":[{"steps":[` + marker + `]},{"steps":[{"text":"ok"}]}]}`,
			approval: ApprovalAuto,
			approver: &approver{allow: false},
			wantOut:  Completed,
			marker:   true,
			wantEv:   []string{"tool id-1 shell call_1 shell: started", `done id-1 shell: exit 0 "made\n" err=false failed=false`, "start id-2", "delta id-2 ok", "end id-2 ok"},
			wantMsgs: []string{"user:hello", "assistant: [call_1 shell]", "tool:made\n <call_1 shell>", "assistant:ok"},
		},
		{
			name:     "read-only tool asks nobody",
			script:   `{"responses":[{"steps":[{"tool_call":{"name":"read_file","arguments":{"path":"f.txt"}}}]},{"steps":[{"text":"ok"}]}]}`,
			approver: &approver{allow: false},
			wantOut:  Completed,
			wantEv:   []string{"tool id-1 read_file call_1 read_file: started", `done id-1 read_file: 1 lines "content\n" err=false failed=false`, "start id-2", "delta id-2 ok", "end id-2 ok"},
			wantMsgs: []string{"user:hello", "assistant: [call_1 read_file]", "tool:content\n <call_1 read_file>", "assistant:ok"},
		},
		{
			name:     "unknown tool",
			script:   `{"responses":[{"steps":[{"tool_call":{"name":"nope"}}]},{"steps":[{"text":"ok"}]}]}`,
			wantOut:  Completed,
			wantEv:   []string{"tool id-1 nope call_1 unknown tool", `done id-1 unknown tool "unknown tool" err=true failed=true`, "start id-2", "delta id-2 ok", "end id-2 ok"},
			wantMsgs: []string{"user:hello", "assistant: [call_1 nope]", "tool:unknown tool <call_1 nope>", "assistant:ok"},
		},
		{
			name:     "provider error keeps partial text",
			script:   `{"responses":[{"steps":[{"text":"part"},{"tool_call":{"name":"list_dir"}},{"error":"boom"}]}]}`,
			wantOut:  Failed,
			wantCode: protocol.CodeExecutionFailed,
			wantEv: []string{"start id-1", "delta id-1 part", "end id-1 part",
				"diag execution_failed provider error: the provider call failed for a reason that could not be told; `magi-code logs` has the details"},
			wantMsgs: []string{"user:hello", "assistant:part"},
		},
		{
			name:     "sink delta failure is output_unavailable",
			script:   `{"responses":[{"steps":[{"text":"a"},{"text":"b"}]}]}`,
			sinkFail: "TextDelta",
			sinkErr:  errors.New("queue stuck"),
			wantOut:  Failed,
			wantCode: protocol.CodeOutputUnavailable,
			wantEv:   []string{"start id-1", "delta id-1 a", "end id-1 a"},
			wantMsgs: []string{"user:hello", "assistant:a"},
		},
		{
			name:     "sink error keeps its own code",
			script:   `{"responses":[{"steps":[{"text":"a"}]}]}`,
			sinkFail: "SegmentEnd",
			sinkErr:  &Error{Code: protocol.CodePersistenceFailed},
			wantOut:  Failed,
			wantCode: protocol.CodePersistenceFailed,
			wantEv:   []string{"start id-1", "delta id-1 a", "end id-1 a"},
			wantMsgs: []string{"user:hello", "assistant:a"},
		},
		{
			name:     "tool finished failure answers later calls",
			script:   `{"responses":[{"steps":[{"tool_call":{"name":"list_dir"}},{"tool_call":{"name":"list_dir"}}]}]}`,
			sinkFail: "ToolFinished",
			sinkErr:  errors.New("stuck"),
			wantOut:  Failed,
			wantCode: protocol.CodeOutputUnavailable,
			wantEv:   []string{"tool id-1 list_dir call_1 list_dir: started", `done id-1 list_dir: 1 entries "f.txt\n" err=false failed=false`},
			wantMsgs: []string{"user:hello", "assistant: [call_1 list_dir] [call_2 list_dir]", "tool:f.txt\n <call_1 list_dir>", "tool:" + TextNotRun + " <call_2 list_dir>"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("content\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var sc *fixture.Script
			if tc.script != "" {
				sc = parse(t, tc.script)
			}
			cfg := testConfig(t, sc, dir)
			if tc.approval != "" {
				cfg.Approval = tc.approval
			}
			if tc.approver != nil {
				cfg.Approver = tc.approver
			}
			sink := &recorder{failOn: tc.sinkFail, failErr: tc.sinkErr}
			res, err := Run(context.Background(), cfg, nil, "hello", sink)
			if res.Outcome != tc.wantOut || res.Code != tc.wantCode {
				t.Errorf("Run = %s %q (err %v); want %s %q", res.Outcome, res.Code, err, tc.wantOut, tc.wantCode)
			}
			if (err == nil) != (tc.wantOut == Completed) || (err != nil && CodeOf(err, "") != tc.wantCode) {
				t.Errorf("err = %v; want code %q", err, tc.wantCode)
			}
			if !reflect.DeepEqual(sink.events, tc.wantEv) {
				t.Errorf("events:\n got %q\nwant %q", sink.events, tc.wantEv)
			}
			if got := roles(res.Messages); !reflect.DeepEqual(got, tc.wantMsgs) {
				t.Errorf("messages:\n got %q\nwant %q", got, tc.wantMsgs)
			}
			if tc.approver != nil && len(tc.approver.asked) != tc.wantAsked {
				t.Errorf("asked %d times (%q); want %d", len(tc.approver.asked), tc.approver.asked, tc.wantAsked)
			}
			if _, err := os.Stat(filepath.Join(dir, "marker")); (err == nil) != tc.marker {
				t.Errorf("marker exists = %v; want %v", err == nil, tc.marker)
			}
		})
	}
}

func TestApprovalSummaryNamesCommand(t *testing.T) {
	ap := &approver{allow: false}
	cfg := testConfig(t, parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"shell","arguments":{"command":"rm -rf build"}}}]},{"steps":[]}]}`), t.TempDir())
	cfg.Approver = ap
	if _, err := Run(context.Background(), cfg, nil, "x", &recorder{}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"shell|shell: rm -rf build"}; !reflect.DeepEqual(ap.asked, want) {
		t.Errorf("asked %q; want %q", ap.asked, want)
	}
}

// capture is a provider that records requests and answers with text.
type capture struct{ reqs []provider.Request }

func (c *capture) Stream(ctx context.Context, req provider.Request, emit func(provider.StreamEvent) error) error {
	c.reqs = append(c.reqs, req)
	return emit(provider.StreamEvent{Kind: provider.TextDelta, Text: "ok"})
}

func TestRequestCarriesContext(t *testing.T) {
	p := &capture{}
	history := []Message{{Role: "user", Text: "before"}, {Role: "assistant", Text: "earlier"}}
	orig := append([]Message(nil), history...)
	cfg := Config{Provider: p, Model: "m", System: []string{"instructions", "skills", "profile"}, Tools: tools.Builtin(tools.Options{Cwd: t.TempDir()})}
	res, err := Run(context.Background(), cfg, history[:2:2], "now", &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.reqs) != 1 {
		t.Fatalf("%d requests", len(p.reqs))
	}
	req := p.reqs[0]
	if req.Model != "m" || !reflect.DeepEqual(req.System, cfg.System) {
		t.Errorf("model/system = %q %q", req.Model, req.System)
	}
	if got := roles(req.Messages); !reflect.DeepEqual(got, []string{"user:before", "assistant:earlier", "user:now"}) {
		t.Errorf("messages = %q", got)
	}
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Name)
		if !json.Valid(s.Schema) || s.Description == "" {
			t.Errorf("tool %s: bad spec", s.Name)
		}
	}
	if want := []string{"read_file", "write_file", "edit_file", "list_dir", "grep", "shell"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tools = %q", names)
	}
	if !reflect.DeepEqual(history, orig) {
		t.Error("history was modified")
	}
	if got := roles(res.Messages); !reflect.DeepEqual(got, []string{"user:now", "assistant:ok"}) {
		t.Errorf("result messages = %q", got)
	}
}

func textStep(s string, n int) fixture.Step { return fixture.Step{Text: &s, Repeat: n} }
func callStep(name string) fixture.Step {
	return fixture.Step{ToolCall: &fixture.ToolCall{Name: name, Arguments: json.RawMessage(`{}`)}}
}

// noop is a cheap read-only tool for bound tests.
type noop struct{}

func (noop) Name() string                    { return "noop" }
func (noop) Description() string             { return "does nothing" }
func (noop) Schema() json.RawMessage         { return json.RawMessage(`{"type":"object"}`) }
func (noop) Mutating() bool                  { return false }
func (noop) Describe(json.RawMessage) string { return "noop" }
func (noop) Run(context.Context, json.RawMessage) tools.Result {
	return tools.Result{Text: "ok", Summary: "noop: ok"}
}

func TestBounds(t *testing.T) {
	// rounds builds n responses of text+noop call and a final text response.
	rounds := func(n int) *fixture.Script {
		sc := &fixture.Script{}
		for i := 0; i < n-1; i++ {
			sc.Responses = append(sc.Responses, fixture.Response{Steps: []fixture.Step{textStep("x", 1), callStep("noop")}})
		}
		sc.Responses = append(sc.Responses, fixture.Response{Steps: []fixture.Step{textStep("end", 1)}})
		return sc
	}
	calls := func(n int) *fixture.Script {
		steps := make([]fixture.Step, n)
		for i := range steps {
			steps[i] = callStep("noop")
		}
		return &fixture.Script{Responses: []fixture.Response{{Steps: steps}, {Steps: []fixture.Step{textStep("end", 1)}}}}
	}
	const chunk = 1 << 10
	kib := strings.Repeat("k", chunk)
	tests := []struct {
		name         string
		script       *fixture.Script
		maxRounds    int
		wantCode     protocol.Code
		wantContent  int
		wantSegments int
		wantActs     int
	}{
		{
			name:        "content at 8 MiB",
			script:      &fixture.Script{Responses: []fixture.Response{{Steps: []fixture.Step{textStep(kib, protocol.RunContentBytes/chunk)}}}},
			wantContent: protocol.RunContentBytes, wantSegments: 1,
		},
		{
			name:        "content at 8 MiB + 1",
			script:      &fixture.Script{Responses: []fixture.Response{{Steps: []fixture.Step{textStep(kib, protocol.RunContentBytes/chunk), textStep("!", 1), textStep("never", 1)}}}},
			wantCode:    protocol.CodeContentLimit,
			wantContent: protocol.RunContentBytes, wantSegments: 1,
		},
		{
			name:        "512 segments",
			script:      rounds(512),
			maxRounds:   2000,
			wantContent: 511 + 3, wantSegments: 512, wantActs: 511,
		},
		{
			name:        "513 segments",
			script:      rounds(513),
			maxRounds:   2000,
			wantCode:    protocol.CodeContentLimit,
			wantContent: 512, wantSegments: 512, wantActs: 512,
		},
		{
			name:        "default round cap allows 512 segments",
			script:      rounds(513),
			wantCode:    protocol.CodeContentLimit,
			wantContent: 512, wantSegments: 512, wantActs: 512,
		},
		{
			name:        "round cap",
			script:      rounds(10),
			maxRounds:   3,
			wantCode:    protocol.CodeExecutionFailed,
			wantContent: 3, wantSegments: 3, wantActs: 3,
		},
		{
			name:        "4096 activities",
			script:      calls(protocol.RunActivityIDs),
			wantContent: 3, wantSegments: 1, wantActs: protocol.RunActivityIDs,
		},
		{
			name:     "4097 activities",
			script:   calls(protocol.RunActivityIDs + 1),
			wantCode: protocol.CodeContentLimit,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Provider: fixtureprov.New(tc.script), Tools: tools.NewSet(noop{}), MaxRounds: tc.maxRounds}
			sink := &recorder{quiet: true}
			res, err := Run(context.Background(), cfg, nil, "go", sink)
			if res.Code != tc.wantCode || CodeOf(err, "") != tc.wantCode {
				t.Errorf("Run = %s %q, %v; want code %q", res.Outcome, res.Code, err, tc.wantCode)
			}
			// Only the round cap is ErrRoundLimit (ACP's max_turn_requests).
			if roundCap := tc.maxRounds > 0 && tc.wantCode == protocol.CodeExecutionFailed; errors.Is(err, ErrRoundLimit) != roundCap {
				t.Errorf("errors.Is(%v, ErrRoundLimit) = %v; want %v", err, !roundCap, roundCap)
			}
			if res.ContentBytes != tc.wantContent || res.Segments != tc.wantSegments || res.Activities != tc.wantActs {
				t.Errorf("accounting = %d bytes, %d segments, %d activities; want %d, %d, %d",
					res.ContentBytes, res.Segments, res.Activities, tc.wantContent, tc.wantSegments, tc.wantActs)
			}
			if sink.deltaBytes != tc.wantContent {
				t.Errorf("sink saw %d delta bytes; want %d", sink.deltaBytes, tc.wantContent)
			}
			// The accepted text is reconciled even when the run fails.
			if tc.wantSegments > 0 {
				last := sink.events[len(sink.events)-1]
				if !strings.HasPrefix(last, "end ") {
					t.Errorf("last event %q; want a segment end", last)
				}
			}
			// Every tool call in the replay history is answered.
			asked, answered := 0, 0
			for _, m := range res.Messages {
				asked += len(m.ToolCalls)
				if m.Role == provider.RoleTool {
					answered++
				}
			}
			if asked != answered {
				t.Errorf("%d tool calls, %d tool messages", asked, answered)
			}
		})
	}
}

func TestCancelDuringSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig(t, parse(t, `{"responses":[{"steps":[{"text":"wait"},{"sleep_ms":600000},{"text":"late"}]}]}`), t.TempDir())
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		sink := &recorder{onDelta: func(string) { time.AfterFunc(time.Second, cancel) }}
		start := time.Now()
		res, err := Run(ctx, cfg, nil, "hi", sink)
		if !errors.Is(err, ErrCancelled) || res.Outcome != Cancelled || res.Code != "" {
			t.Fatalf("Run = %s %q, %v; want cancelled", res.Outcome, res.Code, err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("returned after %v; want 1s", d)
		}
		want := []string{"start id-1", "delta id-1 wait", "end id-1 wait"}
		if !reflect.DeepEqual(sink.events, want) {
			t.Errorf("events %q; want %q", sink.events, want)
		}
		if got := roles(res.Messages); !reflect.DeepEqual(got, []string{"user:hi", "assistant:wait"}) {
			t.Errorf("messages %q", got)
		}
	})
}

func TestCancelWithCodedCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := testConfig(t, parse(t, `{"responses":[{"steps":[{"sleep_ms":600000}]}]}`), t.TempDir())
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(time.Second, func() { cancel(&Error{Code: protocol.CodeOutputUnavailable}) })
		res, err := Run(ctx, cfg, nil, "hi", &recorder{})
		if res.Outcome != Failed || res.Code != protocol.CodeOutputUnavailable || CodeOf(err, "") != protocol.CodeOutputUnavailable {
			t.Fatalf("Run = %s %q, %v; want failed output_unavailable", res.Outcome, res.Code, err)
		}
	})
}

func TestCancelDuringApproval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		cfg := testConfig(t, parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"write_file","arguments":{"path":"marker","content":"x"}}}]}]}`), dir)
		ap := &approver{block: true}
		cfg.Approver = ap
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Second, cancel)
		sink := &recorder{}
		res, err := Run(ctx, cfg, nil, "hi", sink)
		if !errors.Is(err, ErrCancelled) || res.Outcome != Cancelled {
			t.Fatalf("Run = %s, %v; want cancelled", res.Outcome, err)
		}
		want := []string{"tool id-1 write_file call_1 write_file: started", `done id-1 write_file: cancelled "cancelled" err=true failed=true`}
		if !reflect.DeepEqual(sink.events, want) {
			t.Errorf("events %q; want %q", sink.events, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
			t.Error("tool ran despite cancelled approval")
		}
		if got := roles(res.Messages); !reflect.DeepEqual(got, []string{"user:hi", "assistant: [call_1 write_file]", "tool:cancelled <call_1 write_file>"}) {
			t.Errorf("messages %q", got)
		}
	})
}

func TestCancelDuringShell(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(t, parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"shell","arguments":{"command":"sleep 1000 & sleep 1000 & echo $$ > pgid; wait"}}}]}]}`), dir)
	cfg.Approval = ApprovalAuto
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type out struct {
		res Result
		err error
	}
	done := make(chan out)
	go func() {
		res, err := Run(ctx, cfg, nil, "hi", &recorder{})
		done <- out{res, err}
	}()
	pgid := waitPgid(t, filepath.Join(dir, "pgid"))
	cancel()
	o := <-done
	if !errors.Is(o.err, ErrCancelled) || o.res.Outcome != Cancelled {
		t.Fatalf("Run = %s, %v; want cancelled", o.res.Outcome, o.err)
	}
	// Every process of the shell's group is dead on return; killed orphans
	// may linger as zombies (nobody reaps them when the test is PID 1), and
	// a zombie counts as gone.
	proctest.WaitGroupGone(t, pgid)
}

func waitPgid(t *testing.T, p string) int {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if b, err := os.ReadFile(p); err == nil && strings.HasSuffix(string(b), "\n") {
			n, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("shell never started")
	return 0
}

// nopSink discards everything.
type nopSink struct{}

func (nopSink) SegmentStart(string)                                           {}
func (nopSink) TextDelta(string, string) error                                { return nil }
func (nopSink) SegmentEnd(string, string) error                               { return nil }
func (nopSink) ReasoningSummary(string, string) error                         { return nil }
func (nopSink) ToolStarted(string, string, string, ToolCall) error            { return nil }
func (nopSink) ToolFinished(string, string, string, string, bool, bool) error { return nil }
func (nopSink) Activity(string, string, string, string, string) error         { return nil }
func (nopSink) Diagnostic(string, string) error                               { return nil }
func (nopSink) Compaction(string, []Message) error                            { return nil }
func (nopSink) TaskScope(string) error                                        { return nil }

func TestFlood(t *testing.T) {
	// 1,000,000 deltas through the loop: all accepted (8 bytes each stays
	// under the 8 MiB bound), one segment.
	sc := &fixture.Script{Responses: []fixture.Response{{Steps: []fixture.Step{textStep("01234567", 1_000_000)}}}}
	res, err := Run(context.Background(), Config{Provider: fixtureprov.New(sc)}, nil, "flood", nopSink{})
	if err != nil || res.ContentBytes != 8_000_000 || res.Segments != 1 || len(res.Messages[1].Text) != 8_000_000 {
		t.Fatalf("Run = %+v bytes, %v", res.ContentBytes, err)
	}
}

// BenchmarkFlood pushes 1,000,000 eight-byte deltas per op through the
// fixture provider and the loop into a no-op sink.
func BenchmarkFlood(b *testing.B) {
	const deltas = 1_000_000
	sc := &fixture.Script{Responses: []fixture.Response{{Steps: []fixture.Step{textStep("01234567", deltas)}}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), Config{Provider: fixtureprov.New(sc)}, nil, "flood", nopSink{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*deltas/b.Elapsed().Seconds(), "deltas/s")
}

// BenchmarkFloodContentLimit floods 1,000,000 deltas of 100 bytes: the loop
// accepts 8 MiB and stops with content_limit.
func BenchmarkFloodContentLimit(b *testing.B) {
	sc := &fixture.Script{Responses: []fixture.Response{{Steps: []fixture.Step{textStep(strings.Repeat("y", 100), 1_000_000)}}}}
	b.ReportAllocs()
	for b.Loop() {
		res, _ := Run(context.Background(), Config{Provider: fixtureprov.New(sc)}, nil, "flood", nopSink{})
		if res.Code != protocol.CodeContentLimit {
			b.Fatal(res.Code)
		}
	}
	b.ReportMetric(float64(b.N)*float64(protocol.RunContentBytes/100)/b.Elapsed().Seconds(), "deltas/s")
}

package agent

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magi-code/magi-code/runner/fixture"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// TestSubagentResultBound: docs/architecture.md, The agent runner: "a 32 KiB result". A result
// of exactly SubagentResultBytes is kept whole; a longer one is cut at a
// UTF-8 boundary and ends in tools.TruncatedMarker, within the bound.
func TestSubagentResultBound(t *testing.T) {
	ascii := strings.Repeat("a", SubagentResultBytes)
	if got := bounded(ascii); got != ascii {
		t.Errorf("a result of exactly %d bytes was changed (%d bytes)", SubagentResultBytes, len(got))
	}
	over := ascii + "b"
	got := bounded(over)
	if want := ascii[:SubagentResultBytes-len(tools.TruncatedMarker)] + tools.TruncatedMarker; got != want {
		t.Errorf("bounded(%d ASCII bytes) = %d bytes ending %q; want %d bytes", len(over), len(got), got[len(got)-30:], len(want))
	}
	// Bytes that are all continuation bytes (invalid UTF-8 from a provider)
	// leave no boundary to cut at: the result is the marker alone.
	if got := bounded(strings.Repeat("\x80", SubagentResultBytes+1)); got != tools.TruncatedMarker {
		t.Errorf("bounded(continuation bytes) = %d bytes; want the marker alone", len(got))
	}
	// A 3-byte rune straddles every cut position once across the shifts.
	for shift := 0; shift < 3; shift++ {
		s := strings.Repeat("x", shift) + strings.Repeat("€", SubagentResultBytes)
		got := bounded(s)
		body, ok := strings.CutSuffix(got, tools.TruncatedMarker)
		if !ok || len(got) > SubagentResultBytes || !utf8.ValidString(got) || !strings.HasPrefix(s, body) {
			t.Fatalf("shift %d: %d bytes, valid %v, marker %v", shift, len(got), utf8.ValidString(got), ok)
		}
		// The cut is at the last rune boundary at or before the bound.
		if room := SubagentResultBytes - len(tools.TruncatedMarker); len(body) <= room-3 {
			t.Errorf("shift %d: cut at %d, more than one rune before %d", shift, len(body), room)
		}
	}
}

// TestSubagentLongAnswerIsBounded: the bound applies to the task result
// the primary model sees.
func TestSubagentLongAnswerIsBounded(t *testing.T) {
	sc := &fixture.Script{Responses: []fixture.Response{
		{Steps: []fixture.Step{{ToolCall: &fixture.ToolCall{Name: TaskToolName, Arguments: json.RawMessage(`{"profile":"p","prompt":"write a lot"}`)}}}},
		{Steps: []fixture.Step{textStep(strings.Repeat("w", 1024), 40)}},
		{Steps: []fixture.Step{textStep("done", 1)}},
	}}
	cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(noop{}), Subagents: []Subagent{{Name: "p"}}}
	res, err := Run(context.Background(), cfg, nil, "go", &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	var result string
	for _, m := range res.Messages {
		if m.Role == provider.RoleTool {
			result = m.Text
		}
	}
	if len(result) != SubagentResultBytes || !strings.HasSuffix(result, tools.TruncatedMarker) {
		t.Errorf("task result of %d bytes (marker %v); want %d ending in the marker", len(result), strings.HasSuffix(result, tools.TruncatedMarker), SubagentResultBytes)
	}
}

// TestCeilingEncoding: a ceiling is stored as compact JSON with its tools
// sorted ([] for none), and only a well-formed ceiling of one named profile
// decodes.
func TestCeilingEncoding(t *testing.T) {
	if got, want := (Ceiling{Profile: "p", Tools: []string{"shell", "grep"}}).String(), `{"profile":"p","tools":["grep","shell"]}`; got != want {
		t.Errorf("String = %s; want %s", got, want)
	}
	if got, want := (Ceiling{Profile: "p"}).String(), `{"profile":"p","tools":[]}`; got != want {
		t.Errorf("String = %s; want %s", got, want)
	}
	if c, ok := CeilingOf(`{"profile":"p","tools":["a","b"]}`); !ok || !reflect.DeepEqual(c, Ceiling{Profile: "p", Tools: []string{"a", "b"}}) {
		t.Errorf("CeilingOf = %+v, %v", c, ok)
	}
	if c, ok := CeilingOf(`{"profile":"p","tools":[]}`); !ok || c.Tools == nil || len(c.Tools) != 0 {
		t.Errorf("CeilingOf(empty tools) = %+v, %v; want an empty, non-nil ceiling", c, ok)
	}
	for _, bad := range []string{
		`explore:read_file`,
		`{"profile":"","tools":[]}`,
		`{"profile":"p"}`,
		`{"profile":"p","tools":null}`,
		`{"profile":"p","tools":[],"extra":1}`,
		`{"profile":"p","tools":[]} {"profile":"q","tools":[]}`,
	} {
		if c, ok := CeilingOf(bad); ok {
			t.Errorf("CeilingOf(%s) = %+v, true; want false", bad, c)
		}
	}
}

// named is a read-only tool with a given name.
type named string

func (n named) Name() string                    { return string(n) }
func (named) Description() string               { return "named" }
func (named) Schema() json.RawMessage           { return json.RawMessage(`{"type":"object"}`) }
func (named) Mutating() bool                    { return false }
func (n named) Describe(json.RawMessage) string { return string(n) }
func (n named) Run(context.Context, json.RawMessage) tools.Result {
	return tools.Result{Text: string(n) + " ran", Summary: string(n) + ": ok"}
}

// TestSubagentGrant: a profile without a tools list gets every tool of
// the run but task (even a registry tool of that name: subagents cannot
// recurse); several stored ceilings of one profile all apply; the run's
// model and no system context when the profile sets none; a second task
// for the same profile records no second ceiling.
func TestSubagentGrant(t *testing.T) {
	call := `{"tool_call":{"name":"task","arguments":{"profile":"p","prompt":"go"}}}`
	rec := &recording{p: fixtureprov.New(parse(t, `{"responses":[{"steps":[`+call+`]},{"steps":[{"text":"one"}]},`+
		`{"steps":[`+call+`]},{"steps":[{"text":"two"}]},{"steps":[{"text":"done"}]}]}`))}
	set := tools.NewSet(named("alpha"), named(TaskToolName), named("beta"), named("gamma"))
	for _, tt := range []struct {
		name      string
		scopes    []string
		wantSub   []string
		wantScope []string
	}{
		{"every tool but task", nil, []string{"alpha", "beta", "gamma"}, []string{`scope {"profile":"p","tools":["alpha","beta","gamma"]}`}},
		{"every stored ceiling applies", []string{`{"profile":"p","tools":["alpha","beta"]}`, `{"profile":"p","tools":["beta","gamma"]}`}, []string{"beta"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec.reqs = nil
			rec.p = fixtureprov.New(parse(t, `{"responses":[{"steps":[`+call+`]},{"steps":[{"text":"one"}]},`+
				`{"steps":[`+call+`]},{"steps":[{"text":"two"}]},{"steps":[{"text":"done"}]}]}`))
			cfg := Config{Provider: rec, Model: "big", System: []string{"primary"}, Tools: set, Subagents: []Subagent{{Name: "p"}}, TaskScopes: tt.scopes}
			sink := &recorder{}
			if _, err := Run(context.Background(), cfg, nil, "go", sink); err != nil {
				t.Fatal(err)
			}
			if len(rec.reqs) != 5 {
				t.Fatalf("%d requests", len(rec.reqs))
			}
			if got := toolNames(rec.reqs[0].Tools); !reflect.DeepEqual(got, []string{"alpha", "beta", "gamma", TaskToolName}) {
				t.Errorf("primary tools %q", got)
			}
			// A profile without a description is listed by name alone.
			if desc := rec.reqs[0].Tools[3].Description; !strings.HasSuffix(desc, "Profiles:\n- p") {
				t.Errorf("task description %q", desc)
			}
			for _, i := range []int{1, 3} {
				sub := rec.reqs[i]
				if got := toolNames(sub.Tools); !reflect.DeepEqual(got, tt.wantSub) {
					t.Errorf("request %d: subagent tools %q; want %q", i, got, tt.wantSub)
				}
				if sub.Model != "big" || sub.System != nil {
					t.Errorf("request %d: subagent model %q system %q; want the run's model and no system context", i, sub.Model, sub.System)
				}
			}
			if got := kinds(sink.events, "scope"); !reflect.DeepEqual(got, tt.wantScope) {
				t.Errorf("scopes %q; want %q", got, tt.wantScope)
			}
		})
	}
}

// TestTaskArgumentErrors: bad arguments, an unknown profile and an empty
// prompt are error results the model sees; no subagent runs.
func TestTaskArgumentErrors(t *testing.T) {
	for _, tt := range []struct{ args, want string }{
		{`{"profile":1,"prompt":"x"}`, `task: arguments must be {"profile", "prompt"}`},
		{`{"profile":"nope","prompt":"x"}`, "task: no enabled subagent profile of that name"},
		{`{"profile":"p","prompt":" \n "}`, "task: prompt is empty"},
	} {
		sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"task","arguments":`+tt.args+`}}]},{"steps":[{"text":"done"}]}]}`)
		cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(noop{}), Subagents: []Subagent{{Name: "p"}}}
		sink := &recorder{}
		res, err := Run(context.Background(), cfg, nil, "go", sink)
		if err != nil {
			t.Fatal(err)
		}
		if got := kinds(sink.events, "done"); len(got) != 1 || !strings.Contains(got[0], `"`+strings.ReplaceAll(tt.want, `"`, `\"`)+`" err=true failed=true`) {
			t.Errorf("%s: done %q; want %q", tt.args, got, tt.want)
		}
		if a := kinds(sink.events, "activity"); a != nil {
			t.Errorf("%s: activities %q; want none", tt.args, a)
		}
		if res.Messages[len(res.Messages)-1].Text != "done" {
			t.Errorf("%s: messages %q", tt.args, roles(res.Messages))
		}
	}
}

// TestSubagentSinkFailures: a sink failure while a task starts (the
// ceiling record, the subagent's activity) fails the primary run with
// output_unavailable after the task call is answered; nothing later runs.
func TestSubagentSinkFailures(t *testing.T) {
	script := `{"responses":[{"steps":[{"tool_call":{"name":"task","arguments":{"profile":"p","prompt":"x"}}}]},` +
		`{"steps":[{"tool_call":{"name":"noop","arguments":{}}}]},{"steps":[{"text":"sub done"}]},{"steps":[{"text":"never"}]}]}`
	for _, fail := range []string{"TaskScope", "Activity"} {
		t.Run(fail, func(t *testing.T) {
			cfg := Config{Provider: fixtureprov.New(parse(t, script)), Tools: tools.NewSet(noop{}), Subagents: []Subagent{{Name: "p"}}}
			sink := &recorder{failOn: fail, failErr: errors.New("edge full")}
			res, err := Run(context.Background(), cfg, nil, "go", sink)
			if res.Outcome != Failed || res.Code != "output_unavailable" || CodeOf(err, "") != "output_unavailable" {
				t.Fatalf("Run = %s %q, %v; want failed output_unavailable", res.Outcome, res.Code, err)
			}
			want := []string{"user:go", "assistant: [call_1 task]", "tool:" + TextNotRun + " <call_1 task>"}
			if got := roles(res.Messages); !reflect.DeepEqual(got, want) {
				t.Errorf("messages %q; want %q", got, want)
			}
		})
	}
}

// nthActivityFails fails the nth Activity call (from 1) and records all.
type nthActivityFails struct {
	*recorder
	n, calls int
}

func (s *nthActivityFails) Activity(id, kind, name, state, summary string) error {
	s.calls++
	err := s.recorder.Activity(id, kind, name, state, summary)
	if s.calls == s.n {
		return errors.New("edge full")
	}
	return err
}

// TestSubagentInnerSinkFailure: the parent sink failing inside a running
// subagent (its tool call's activity) stops the subagent, reports it
// failed ("stopped"), answers the task call as not run and fails the
// primary run with output_unavailable; the primary model is not called
// again.
func TestSubagentInnerSinkFailure(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string // the subagent's last activity
	}{
		{2, "failed subagent p: stopped"},      // the inner call's start
		{3, "failed subagent p: stopped"},      // the inner call's end
		{4, "completed subagent p: completed"}, // the subagent's own end
	} {
		script := `{"responses":[{"steps":[{"tool_call":{"name":"task","arguments":{"profile":"p","prompt":"x"}}}]},` +
			`{"steps":[{"tool_call":{"name":"noop","arguments":{}}}]},{"steps":[{"text":"sub done"}]},{"steps":[{"text":"never"}]}]}`
		rec := &recording{p: fixtureprov.New(parse(t, script))}
		cfg := Config{Provider: rec, Tools: tools.NewSet(noop{}), Subagents: []Subagent{{Name: "p"}}}
		sink := &nthActivityFails{recorder: &recorder{}, n: tt.n}
		res, err := Run(context.Background(), cfg, nil, "go", sink)
		if res.Outcome != Failed || res.Code != "output_unavailable" || CodeOf(err, "") != "output_unavailable" {
			t.Fatalf("n=%d: Run = %s %q, %v; want failed output_unavailable", tt.n, res.Outcome, res.Code, err)
		}
		acts := kinds(sink.events, "activity")
		if last := acts[len(acts)-1]; !strings.HasSuffix(last, tt.want) {
			t.Errorf("n=%d: activities %q; want the last to end %q", tt.n, acts, tt.want)
		}
		for _, r := range rec.reqs {
			if len(r.Messages) > 0 && r.Messages[0].Text == "go" && len(r.Messages) > 1 {
				t.Errorf("n=%d: the primary model was called again after the failure", tt.n)
			}
		}
	}
}

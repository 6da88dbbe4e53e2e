package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// starter reports inner activities through the Reporter until one is
// refused, and says how many it started.
type starter struct{ started *int }

func (starter) Name() string                    { return "starter" }
func (starter) Description() string             { return "starts activities" }
func (starter) Schema() json.RawMessage         { return json.RawMessage(`{"type":"object"}`) }
func (starter) Mutating() bool                  { return false }
func (starter) Describe(json.RawMessage) string { return "starter" }
func (s starter) Run(ctx context.Context, _ json.RawMessage) tools.Result {
	rep := ReporterFrom(ctx)
	for {
		id, err := rep.Start("inner", "inner: started")
		if err != nil {
			return tools.Result{Text: "refused after " + strconv.Itoa(*s.started), Summary: "starter: done"}
		}
		*s.started++
		if err := rep.Finish(id, "inner", false, "inner: ok"); err != nil {
			return tools.Result{Text: "finish failed", IsError: true}
		}
	}
}

// TestReporterActivityBound: activities a tool reports count toward the
// run's RunActivityIDs identities, its own call included: the identity
// past the bound is refused.
func TestReporterActivityBound(t *testing.T) {
	started := 0
	sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"starter","arguments":{}}}]},{"steps":[{"text":"ok"}]}]}`)
	cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(starter{&started})}
	res, err := Run(context.Background(), cfg, nil, "go", nopSink{})
	if err != nil {
		t.Fatal(err)
	}
	if started != protocol.RunActivityIDs-1 || res.Activities != protocol.RunActivityIDs {
		t.Errorf("started %d inner activities, %d in all; want %d, %d", started, res.Activities, protocol.RunActivityIDs-1, protocol.RunActivityIDs)
	}
}

// TestReporterSinkFailure: an inner activity that cannot be delivered
// stops the run with output_unavailable once the tool returns; the model
// is not called again.
func TestReporterSinkFailure(t *testing.T) {
	sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"run_code","arguments":{}}}]},{"steps":[{"text":"never"}]}]}`)
	cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(program{})}
	sink := &recorder{failOn: "Activity", failErr: errors.New("edge full")}
	res, err := Run(context.Background(), cfg, nil, "go", sink)
	if res.Outcome != Failed || res.Code != protocol.CodeOutputUnavailable || CodeOf(err, "") != protocol.CodeOutputUnavailable {
		t.Fatalf("Run = %s %q, %v; want failed output_unavailable", res.Outcome, res.Code, err)
	}
	if got := roles(res.Messages); got[len(got)-1] != "tool:start failed <call_1 run_code>" {
		t.Errorf("messages %q", got)
	}
	if n := len(kinds(sink.events, "start ")); n != 0 {
		t.Errorf("%d segments after the failure", n)
	}
}

// TestReporterApproveWithoutApprover: without an Approver a program's
// approval request is denied, as a direct call's is.
func TestReporterApproveWithoutApprover(t *testing.T) {
	sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"run_code","arguments":{}}}]},{"steps":[{"text":"ok"}]}]}`)
	cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(program{})}
	sink := &recorder{}
	if _, err := Run(context.Background(), cfg, nil, "go", sink); err != nil {
		t.Fatal(err)
	}
	acts := kinds(sink.events, "activity")
	if len(acts) != 4 || acts[3] != "activity id-3 tool write_file failed write_file: denied by user" {
		t.Errorf("activities %q", acts)
	}
}

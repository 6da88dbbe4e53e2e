package agent

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// TestBlockWithoutReason: a pre_tool_use block without a reason still
// tells the model why the tool did not run.
func TestBlockWithoutReason(t *testing.T) {
	sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"noop","arguments":{}}}]},{"steps":[{"text":"ok"}]}]}`)
	h := &fakeHooks{block: true}
	cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(noop{}), Hooks: h}
	res, err := Run(context.Background(), cfg, nil, "go", &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(res.Messages)[2]; got != "tool:"+TextBlocked+"no reason given <call_1 noop>" {
		t.Errorf("tool message %q", got)
	}
}

// TestStopHookOutcome: the stop hook learns how the run ended by itself
// (completed or failed); a failed stop hook whose diagnostic cannot be
// delivered fails a completed run with output_unavailable but keeps a
// failed run's own code.
func TestStopHookOutcome(t *testing.T) {
	hookErr := errors.New("hook exited 3")
	for _, tt := range []struct {
		name     string
		script   string
		hooks    *fakeHooks
		sinkFail string
		wantHook []string
		wantCode protocol.Code
	}{
		{"completed", `{"responses":[{"steps":[{"text":"ok"}]}]}`, &fakeHooks{}, "", []string{"stop completed"}, ""},
		{"failed", `{"responses":[{"steps":[{"text":"half"},{"error":"persistence_failed"}]}]}`, &fakeHooks{}, "", []string{"stop failed"}, protocol.CodePersistenceFailed},
		{"failed, undeliverable diagnostic", `{"responses":[{"steps":[{"error":"persistence_failed"}]}]}`,
			&fakeHooks{stopErr: hookErr}, "Diagnostic", []string{"stop failed"}, protocol.CodePersistenceFailed},
		{"completed, undeliverable diagnostic", `{"responses":[{"steps":[{"text":"ok"}]}]}`,
			&fakeHooks{stopErr: hookErr}, "Diagnostic", []string{"stop completed"}, protocol.CodeOutputUnavailable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Provider: fixtureprov.New(parse(t, tt.script)), Hooks: tt.hooks}
			res, err := Run(context.Background(), cfg, nil, "go", &recorder{failOn: tt.sinkFail, failErr: errors.New("edge full")})
			if res.Code != tt.wantCode || CodeOf(err, "") != tt.wantCode {
				t.Errorf("Run = %s %q, %v; want code %q", res.Outcome, res.Code, err, tt.wantCode)
			}
			if !reflect.DeepEqual(tt.hooks.calls, tt.wantHook) {
				t.Errorf("hook calls %q; want %q", tt.hooks.calls, tt.wantHook)
			}
		})
	}
}

// TestToolHookDiagnosticUndeliverable: a failing pre or post hook whose
// diagnostic cannot be delivered fails the run with output_unavailable;
// after a failed pre hook the tool does not run.
func TestToolHookDiagnosticUndeliverable(t *testing.T) {
	hookErr := errors.New("hook exited 3")
	for _, tt := range []struct {
		name    string
		hooks   *fakeHooks
		wantRan int
	}{
		{"pre", &fakeHooks{preErr: hookErr}, 0},
		{"post", &fakeHooks{postErr: hookErr}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ran := 0
			sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"guarded","arguments":{}}}]},{"steps":[{"text":"never"}]}]}`)
			cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(guarded{&ran}), Hooks: tt.hooks}
			sink := &recorder{failOn: "Diagnostic", failErr: errors.New("edge full")}
			res, err := Run(context.Background(), cfg, nil, "go", sink)
			if res.Code != protocol.CodeOutputUnavailable || CodeOf(err, "") != protocol.CodeOutputUnavailable {
				t.Errorf("Run = %s %q, %v; want failed output_unavailable", res.Outcome, res.Code, err)
			}
			if ran != tt.wantRan {
				t.Errorf("tool ran %d times; want %d", ran, tt.wantRan)
			}
			if got := kinds(sink.events, "done"); len(got) != 1 {
				t.Errorf("done %q; want the call reported once", got)
			}
		})
	}
}

// cancellingPost cancels the run from inside PostToolUse and fails as a
// killed hook does.
type cancellingPost struct {
	fakeHooks
	cancel context.CancelFunc
}

func (h *cancellingPost) PostToolUse(ctx context.Context, tool string, args json.RawMessage, result string, isError bool) error {
	h.calls = append(h.calls, "post "+tool)
	h.cancel()
	return ctx.Err()
}

// TestCancelDuringPostToolUse: a post hook killed by cancellation is not a
// hook failure (no diagnostic); the run ends cancelled.
func TestCancelDuringPostToolUse(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"noop","arguments":{}}}]},{"steps":[{"text":"never"}]}]}`)
	h := &cancellingPost{cancel: cancel}
	cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(noop{}), Hooks: h}
	sink := &recorder{}
	res, err := Run(ctx, cfg, nil, "go", sink)
	if !errors.Is(err, ErrCancelled) || res.Outcome != Cancelled {
		t.Fatalf("Run = %s, %v; want cancelled", res.Outcome, err)
	}
	if got := kinds(sink.events, "diag"); got != nil {
		t.Errorf("diagnostics %q for a cancelled hook", got)
	}
	if !reflect.DeepEqual(h.calls, []string{"pre noop", "post noop"}) {
		t.Errorf("hook calls %q", h.calls)
	}
}

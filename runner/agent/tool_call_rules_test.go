package agent

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// mutating is a mutating tool that counts its runs.
type mutating struct{ ran *int }

func (mutating) Name() string                    { return "mut" }
func (mutating) Description() string             { return "mutates" }
func (mutating) Schema() json.RawMessage         { return json.RawMessage(`{"type":"object"}`) }
func (mutating) Mutating() bool                  { return true }
func (mutating) Describe(json.RawMessage) string { return "mut call" }
func (m mutating) Run(context.Context, json.RawMessage) tools.Result {
	*m.ran++
	return tools.Result{Text: "mutated", Summary: "mut: ok"}
}

// TestApprovalModes: only "auto" runs a mutating tool unasked; "ask" and
// any other value ask first (docs/configuration.md, tools.approval).
func TestApprovalModes(t *testing.T) {
	for _, tt := range []struct {
		mode  string
		asked int
	}{{ApprovalAuto, 0}, {ApprovalAsk, 1}, {"", 1}, {"never", 1}} {
		ran := 0
		sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"mut","arguments":{}}}]},{"steps":[{"text":"ok"}]}]}`)
		ap := &approver{allow: true}
		cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(mutating{&ran}), Approval: tt.mode, Approver: ap}
		if _, err := Run(context.Background(), cfg, nil, "go", &recorder{}); err != nil {
			t.Fatal(err)
		}
		if len(ap.asked) != tt.asked || ran != 1 {
			t.Errorf("approval %q: asked %d, ran %d; want asked %d, ran 1", tt.mode, len(ap.asked), ran, tt.asked)
		}
	}
}

// TestApprovalDeliveryFailure: an approval request that cannot be
// delivered stops the run with the error's code (execution_failed when it
// has none); the tool never runs and the call is answered as not run.
func TestApprovalDeliveryFailure(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want protocol.Code
	}{
		{errors.New("no route"), protocol.CodeExecutionFailed},
		{&Error{Code: protocol.CodeOutputUnavailable}, protocol.CodeOutputUnavailable},
	} {
		ran := 0
		sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"mut","arguments":{}}}]},{"steps":[{"text":"never"}]}]}`)
		cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(mutating{&ran}), Approver: &approver{allow: true, err: tt.err}}
		sink := &recorder{}
		res, err := Run(context.Background(), cfg, nil, "go", sink)
		if res.Outcome != Failed || res.Code != tt.want || CodeOf(err, "") != tt.want {
			t.Errorf("Run = %s %q, %v; want failed %q", res.Outcome, res.Code, err, tt.want)
		}
		if ran != 0 {
			t.Error("the tool ran without a delivered approval")
		}
		wantDone := []string{`done id-1 mut: approval failed "` + TextNotRun + `" err=true failed=true`}
		if got := kinds(sink.events, "done"); !reflect.DeepEqual(got, wantDone) {
			t.Errorf("done %q; want %q", got, wantDone)
		}
		if got := roles(res.Messages); got[len(got)-1] != "tool:"+TextNotRun+" <call_1 mut>" {
			t.Errorf("messages %q", got)
		}
	}
}

// TestToolStartedFailure: an activity that cannot be announced fails the
// run with output_unavailable; the tool never runs and every call of the
// response is answered as not run in the stored conversation.
func TestToolStartedFailure(t *testing.T) {
	ran := 0
	sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"guarded","arguments":{}}},{"tool_call":{"name":"guarded","arguments":{}}}]},{"steps":[{"text":"never"}]}]}`)
	cfg := Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(guarded{&ran})}
	sink := &recorder{failOn: "ToolStarted", failErr: errors.New("edge full")}
	res, err := Run(context.Background(), cfg, nil, "go", sink)
	if res.Code != protocol.CodeOutputUnavailable || CodeOf(err, "") != protocol.CodeOutputUnavailable {
		t.Fatalf("Run = %s %q, %v", res.Outcome, res.Code, err)
	}
	if ran != 0 {
		t.Error("tool ran after a failed announcement")
	}
	want := []string{"user:go", "assistant: [call_1 guarded] [call_2 guarded]", "tool:" + TextNotRun + " <call_1 guarded>", "tool:" + TextNotRun + " <call_2 guarded>"}
	if got := roles(res.Messages); !reflect.DeepEqual(got, want) {
		t.Errorf("messages %q; want %q", got, want)
	}
}

// streamFunc is a provider answering each request with the next function.
type streamFunc []func(emit func(provider.StreamEvent) error) error

func (s *streamFunc) Stream(_ context.Context, _ provider.Request, emit func(provider.StreamEvent) error) error {
	f := (*s)[0]
	*s = (*s)[1:]
	return f(emit)
}

// TestReasoningSummaries: a summary keeps the provider's ID (a fresh one
// when it has none) and counts toward the run's content bound like text:
// the summary that would cross it fails the run with content_limit.
func TestReasoningSummaries(t *testing.T) {
	p := &streamFunc{func(emit func(provider.StreamEvent) error) error {
		for _, ev := range []provider.StreamEvent{
			{Kind: provider.ReasoningSummary, Text: "plan", SummaryID: "rs_7"},
			{Kind: provider.ReasoningSummary, Text: "more"},
			{Kind: provider.TextDelta, Text: "ok"},
		} {
			if err := emit(ev); err != nil {
				return err
			}
		}
		return nil
	}}
	sink := &recorder{}
	res, err := Run(context.Background(), Config{Provider: p}, nil, "go", sink)
	if err != nil || res.ContentBytes != 10 {
		t.Fatalf("Run = %d bytes, %v", res.ContentBytes, err)
	}
	want := []string{"summary rs_7 plan", "summary id-1 more", "start id-2", "delta id-2 ok", "end id-2 ok"}
	if !reflect.DeepEqual(sink.events, want) {
		t.Errorf("events %q; want %q", sink.events, want)
	}

	for _, tt := range []struct {
		last     int // bytes of the summary that ends the flood
		wantCode protocol.Code
	}{{1, ""}, {2, protocol.CodeContentLimit}} {
		fill := strings.Repeat("t", 1<<20)
		// The first response fills the bound to one byte short, by text
		// minus one byte and a one-byte summary, then the last summary.
		p := &streamFunc{func(emit func(provider.StreamEvent) error) error {
			for i := 0; i < protocol.RunContentBytes>>20; i++ {
				text := fill
				if i == 0 {
					text = fill[:len(fill)-2]
				}
				if err := emit(provider.StreamEvent{Kind: provider.TextDelta, Text: text}); err != nil {
					return err
				}
			}
			if err := emit(provider.StreamEvent{Kind: provider.ReasoningSummary, Text: "s"}); err != nil {
				return err
			}
			return emit(provider.StreamEvent{Kind: provider.ReasoningSummary, Text: strings.Repeat("r", tt.last)})
		}}
		sink := &recorder{quiet: true}
		res, err := Run(context.Background(), Config{Provider: p}, nil, "go", sink)
		if res.Code != tt.wantCode || CodeOf(err, "") != tt.wantCode {
			t.Errorf("last summary of %d bytes: Run = %s %q, %v; want code %q", tt.last, res.Outcome, res.Code, err, tt.wantCode)
		}
		wantBytes := protocol.RunContentBytes - 1 // the refused summary does not count
		if tt.wantCode == "" {
			wantBytes += tt.last
		}
		if res.ContentBytes != wantBytes {
			t.Errorf("last summary of %d bytes: %d content bytes; want %d", tt.last, res.ContentBytes, wantBytes)
		}
		if n := len(kinds(sink.events, "summary")); n != 1+(2-tt.last) {
			t.Errorf("last summary of %d bytes: %d summaries delivered", tt.last, n)
		}
	}
}

// TestCodeOf: a coded error with an empty code falls back, as does an
// uncoded one; wrapped codes are found.
func TestCodeOf(t *testing.T) {
	if got := CodeOf(&Error{}, protocol.CodeExecutionFailed); got != protocol.CodeExecutionFailed {
		t.Errorf("CodeOf(empty code) = %q", got)
	}
	if got := CodeOf(errors.New("x"), protocol.CodeOutputUnavailable); got != protocol.CodeOutputUnavailable {
		t.Errorf("CodeOf(uncoded) = %q", got)
	}
	wrapped := errors.Join(errors.New("x"), &Error{Code: protocol.CodeContentLimit})
	if got := CodeOf(wrapped, protocol.CodeExecutionFailed); got != protocol.CodeContentLimit {
		t.Errorf("CodeOf(wrapped) = %q", got)
	}
	if e := (&Error{Code: protocol.CodeContentLimit, Err: errors.New("secret path /x")}); e.Error() != "agent: content_limit" || e.ErrorCode() != protocol.CodeContentLimit {
		t.Errorf("Error() = %q", e.Error())
	}
}

// TestCancelWithUncodedCause: a cancellation whose cause carries an empty
// code ends the run cancelled, not failed.
func TestCancelWithUncodedCause(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&Error{})
	res, err := Run(ctx, Config{Provider: fixtureprov.New(nil)}, nil, "go", &recorder{})
	if !errors.Is(err, ErrCancelled) || res.Outcome != Cancelled || res.Code != "" {
		t.Errorf("Run = %s %q, %v; want cancelled", res.Outcome, res.Code, err)
	}
}

// TestEmptyResponseAddsNoMessage: a response with neither text nor tool
// calls ends the turn without an empty assistant message in the replay
// (providers refuse empty assistant content).
func TestEmptyResponseAddsNoMessage(t *testing.T) {
	sc := parse(t, `{"responses":[{"steps":[{"tool_call":{"name":"noop","arguments":{}}}]},{"steps":[]}]}`)
	res, err := Run(context.Background(), Config{Provider: fixtureprov.New(sc), Tools: tools.NewSet(noop{})}, nil, "go", &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user:go", "assistant: [call_1 noop]", "tool:ok <call_1 noop>"}
	if got := roles(res.Messages); !reflect.DeepEqual(got, want) {
		t.Errorf("messages %q; want %q", got, want)
	}
}

package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/fixture"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// failNth fails the nth call (from 1) of one sink method and records all.
type failNth struct {
	*recorder
	method   string
	n, calls int
}

func (s *failNth) hit(method string) error {
	if method != s.method {
		return nil
	}
	s.calls++
	if s.calls == s.n {
		return errors.New("edge full")
	}
	return nil
}

func (s *failNth) Activity(id, kind, name, state, summary string) error {
	_ = s.recorder.Activity(id, kind, name, state, summary)
	return s.hit("Activity")
}

func (s *failNth) Compaction(summary string, kept []Message) error {
	_ = s.recorder.Compaction(summary, kept)
	return s.hit("Compaction")
}

// TestCompactionSinkFailures: a compaction whose activity or record cannot
// be delivered fails the run with output_unavailable, and the model is not
// asked for the reply.
func TestCompactionSinkFailures(t *testing.T) {
	history := []Message{{Role: provider.RoleUser, Text: strings.Repeat("h", 400)}}
	for _, tt := range []struct {
		name   string
		script string
		method string
		n      int
		reqs   int // provider calls made
	}{
		{"started activity", `{"responses":[{"steps":[{"text":"SUM"}]},{"steps":[{"text":"never"}]}]}`, "Activity", 1, 0},
		{"record", `{"responses":[{"steps":[{"text":"SUM"}]},{"steps":[{"text":"never"}]}]}`, "Compaction", 1, 1},
		{"completed activity", `{"responses":[{"steps":[{"text":"SUM"}]},{"steps":[{"text":"never"}]}]}`, "Activity", 2, 1},
		{"failed activity", `{"responses":[{"steps":[{"error":"execution_failed"}]},{"steps":[{"text":"never"}]}]}`, "Activity", 2, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recording{p: fixtureprov.New(parse(t, tt.script))}
			sink := &failNth{recorder: &recorder{}, method: tt.method, n: tt.n}
			res, err := Run(context.Background(), Config{Provider: rec, ContextWindow: 100}, history, "now", sink)
			if res.Outcome != Failed || res.Code != protocol.CodeOutputUnavailable || CodeOf(err, "") != protocol.CodeOutputUnavailable {
				t.Fatalf("Run = %s %q, %v; want failed output_unavailable", res.Outcome, res.Code, err)
			}
			if len(rec.reqs) != tt.reqs {
				t.Errorf("%d provider calls; want %d", len(rec.reqs), tt.reqs)
			}
		})
	}
}

// TestCompactionActivityBound: a compaction needs an activity identity;
// past the run's bound it fails the run with content_limit before the
// provider is asked for a summary.
func TestCompactionActivityBound(t *testing.T) {
	steps := make([]fixture.Step, protocol.RunActivityIDs)
	for i := range steps {
		steps[i] = callStep("noop")
	}
	rec := &recording{p: fixtureprov.New(&fixture.Script{Responses: []fixture.Response{{Steps: steps}, {Steps: []fixture.Step{textStep("SUM", 1)}}}})}
	// 4096 calls and answers are far over 80 % of 1000 tokens; the prompt
	// alone is not.
	cfg := Config{Provider: rec, Tools: tools.NewSet(noop{}), ContextWindow: 1000}
	sink := &recorder{quiet: true}
	res, err := Run(context.Background(), cfg, nil, "go", sink)
	if res.Code != protocol.CodeContentLimit || CodeOf(err, "") != protocol.CodeContentLimit {
		t.Fatalf("Run = %s %q, %v; want content_limit", res.Outcome, res.Code, err)
	}
	if len(rec.reqs) != 1 || res.Activities != protocol.RunActivityIDs {
		t.Errorf("%d provider calls, %d activities; want 1, %d", len(rec.reqs), res.Activities, protocol.RunActivityIDs)
	}
	if acts := kinds(sink.events, "activity"); acts != nil {
		t.Errorf("compaction activities %q past the bound", acts)
	}
}

// TestNoCompactionWithoutOlderMessages: at the start of a turn with no
// history there is nothing older than the prompt to summarise, however
// small the window.
func TestNoCompactionWithoutOlderMessages(t *testing.T) {
	rec := &recording{p: fixtureprov.New(parse(t, `{"responses":[{"steps":[{"text":"answer"}]}]}`))}
	sink := &recorder{}
	res, err := Run(context.Background(), Config{Provider: rec, ContextWindow: 1}, nil, strings.Repeat("p", 100), sink)
	if err != nil || len(rec.reqs) != 1 || res.Messages[1].Text != "answer" {
		t.Fatalf("Run = %q, %d requests, %v", roles(res.Messages), len(rec.reqs), err)
	}
	if acts := kinds(sink.events, "activity"); acts != nil {
		t.Errorf("activities %q", acts)
	}
}

// TestNoCompactionSetting: Config.NoCompaction turns auto-compaction off.
func TestNoCompactionSetting(t *testing.T) {
	rec := &recording{p: fixtureprov.New(parse(t, `{"responses":[{"steps":[{"text":"answer"}]}]}`))}
	history := []Message{{Role: provider.RoleUser, Text: strings.Repeat("h", 400)}}
	res, err := Run(context.Background(), Config{Provider: rec, ContextWindow: 10, NoCompaction: true}, history, "now", &recorder{})
	if err != nil || len(rec.reqs) != 1 || res.Messages[1].Text != "answer" {
		t.Fatalf("Run = %q, %d requests, %v", roles(res.Messages), len(rec.reqs), err)
	}
}

package agent

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// TestForcedCompaction: Compact summarises the whole history now, however
// far under the window, through the automatic path (the same activity and
// record, nothing kept); the person's instructions reach only the
// summarisation request; an empty history asks nothing; a failed summary
// fails with the provider's code and a diagnostic, the history unchanged.
func TestForcedCompaction(t *testing.T) {
	older := []Message{
		{Role: provider.RoleUser, Text: "question"},
		{Role: provider.RoleAssistant, Text: "answer"},
	}
	tests := []struct {
		name         string
		history      []Message
		instructions string
		script       string
		wantEv       []string
		wantReqs     [][]string
		wantOut      Outcome
		wantCode     protocol.Code
	}{
		{
			name:    "summarises everything",
			history: older,
			script:  `{"responses":[{"steps":[{"text":" SUM "}]}]}`,
			wantEv: []string{
				"activity id-1 compaction compaction started compacting 2 messages",
				`compaction "SUM" kept=[]`,
				"activity id-1 compaction compaction completed summarised 2 messages",
			},
			wantReqs: [][]string{{"user:question", "assistant:answer", "user:" + compactPrompt}},
			wantOut:  Completed,
		},
		{
			name:         "with instructions",
			history:      older,
			instructions: "  keep the file names \n",
			script:       `{"responses":[{"steps":[{"text":"SUM"}]}]}`,
			wantEv: []string{
				"activity id-1 compaction compaction started compacting 2 messages",
				`compaction "SUM" kept=[]`,
				"activity id-1 compaction compaction completed summarised 2 messages",
			},
			wantReqs: [][]string{{"user:question", "assistant:answer", "user:" + compactPrompt + compactInstructions + "keep the file names"}},
			wantOut:  Completed,
		},
		{
			name:         "blank instructions are none",
			history:      older,
			instructions: " \n\t",
			script:       `{"responses":[{"steps":[{"text":"SUM"}]}]}`,
			wantEv: []string{
				"activity id-1 compaction compaction started compacting 2 messages",
				`compaction "SUM" kept=[]`,
				"activity id-1 compaction compaction completed summarised 2 messages",
			},
			wantReqs: [][]string{{"user:question", "assistant:answer", "user:" + compactPrompt}},
			wantOut:  Completed,
		},
		{
			name:    "empty history asks nothing",
			script:  `{"responses":[{"steps":[{"text":"never"}]}]}`,
			wantOut: Completed,
		},
		{
			name:    "provider failure",
			history: older,
			script:  `{"responses":[{"steps":[{"error":"provider_unavailable"}]}]}`,
			wantEv: []string{
				"activity id-1 compaction compaction started compacting 2 messages",
				"activity id-1 compaction compaction failed compaction failed",
			},
			wantReqs: [][]string{{"user:question", "assistant:answer", "user:" + compactPrompt}},
			wantOut:  Failed,
			wantCode: protocol.CodeProviderUnavailable,
		},
		{
			name:    "empty summary",
			history: older,
			script:  `{"responses":[{"steps":[{"text":"  "}]}]}`,
			wantEv: []string{
				"activity id-1 compaction compaction started compacting 2 messages",
				"activity id-1 compaction compaction failed compaction failed",
			},
			wantReqs: [][]string{{"user:question", "assistant:answer", "user:" + compactPrompt}},
			wantOut:  Failed,
			wantCode: protocol.CodeExecutionFailed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recording{p: fixtureprov.New(parse(t, tt.script))}
			// A window far larger than the history: the compaction is forced.
			cfg := Config{Provider: rec, Model: "m", Tools: tools.NewSet(noop{}), ContextWindow: 1_000_000}
			sink := &recorder{}
			res, err := Compact(context.Background(), cfg, tt.history, tt.instructions, sink)
			if res.Outcome != tt.wantOut || res.Code != tt.wantCode || CodeOf(err, "") != tt.wantCode {
				t.Fatalf("Compact = %s %q, %v; want %s %q", res.Outcome, res.Code, err, tt.wantOut, tt.wantCode)
			}
			if len(res.Messages) != 0 {
				t.Errorf("result messages %q", roles(res.Messages))
			}
			var got []string
			diags := 0
			for _, e := range sink.events {
				switch {
				case strings.HasPrefix(e, "activity"), strings.HasPrefix(e, "compaction"):
					got = append(got, e)
				case strings.HasPrefix(e, "diag "):
					diags++
				}
			}
			if !reflect.DeepEqual(got, tt.wantEv) {
				t.Errorf("events %q\nwant %q", got, tt.wantEv)
			}
			if want := map[bool]int{true: 0, false: 1}[tt.wantCode == ""]; diags != want {
				t.Errorf("%d diagnostics; want %d (%q)", diags, want, sink.events)
			}
			var reqs [][]string
			for _, r := range rec.reqs {
				reqs = append(reqs, roles(r.Messages))
				if len(r.Tools) != 1 {
					t.Errorf("request offers %d tools; want the run's 1", len(r.Tools))
				}
			}
			if !reflect.DeepEqual(reqs, tt.wantReqs) {
				t.Errorf("requests %q\nwant %q", reqs, tt.wantReqs)
			}
		})
	}
}

// TestForcedCompactionCancelled: cancellation during the summary is
// Cancelled, its activity failed.
func TestForcedCompactionCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := &recording{p: fixtureprov.New(parse(t, `{"responses":[{"steps":[{"text":"SUM"}]}]}`))}
	sink := &recorder{}
	res, err := Compact(ctx, Config{Provider: rec}, []Message{{Role: provider.RoleUser, Text: "q"}}, "", sink)
	if !errors.Is(err, ErrCancelled) || res.Outcome != Cancelled {
		t.Fatalf("Compact = %s, %v; want cancelled", res.Outcome, err)
	}
	want := []string{
		"activity id-1 compaction compaction started compacting 1 messages",
		"activity id-1 compaction compaction failed compaction cancelled",
	}
	if !reflect.DeepEqual(sink.events, want) {
		t.Errorf("events %q; want %q", sink.events, want)
	}
}

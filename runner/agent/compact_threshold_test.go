package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/fixture"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
)

// TestEstimateTokens: one token per BytesPerToken bytes of system context,
// message text, tool-call IDs and names, 8 bytes of framing per message,
// tool calls' IDs, names and arguments, and tool specs.
func TestEstimateTokens(t *testing.T) {
	req := provider.Request{
		System: []string{"sys-", "tem"}, // 7
		Messages: []Message{
			{Role: provider.RoleUser, Text: "0123456789"}, // 10 + 8
			{Role: provider.RoleAssistant, Text: "ab", ToolCalls: []ToolCall{ // 2 + 8
				{ID: "c1", Name: "grep", Arguments: []byte(`{"p":"x"}`)}, // 2 + 4 + 9
			}},
			{Role: provider.RoleTool, Text: "result", ToolCallID: "c1", ToolName: "grep"}, // 6 + 2 + 4 + 8
		},
		Tools: []provider.ToolSpec{{Name: "grep", Description: "search", Schema: []byte(`{"type":"object"}`)}}, // 4 + 6 + 17
	}
	const bytes = 7 + 18 + 10 + 15 + 20 + 27
	if got := EstimateTokens(req); got != bytes/BytesPerToken {
		t.Errorf("EstimateTokens = %d; want %d (%d bytes)", got, bytes/BytesPerToken, bytes)
	}
	if got := EstimateTokens(provider.Request{}); got != 0 {
		t.Errorf("EstimateTokens(empty) = %d; want 0", got)
	}
}

// TestCompactionThreshold: docs/architecture.md, The agent runner: compaction starts
// when the estimated request *reaches* CompactPercent of the window: at
// exactly 80 % it compacts, one token below it does not.
func TestCompactionThreshold(t *testing.T) {
	// History of one user message of n bytes, prompt "now": the estimate
	// is (n+8 + 3+8)/4 tokens; the window is 100 tokens (threshold 80).
	for _, tt := range []struct {
		n       int
		compact bool
	}{
		{320 - 19, true},      // 320 bytes: 80 tokens
		{320 - 19 + 3, true},  // still 80 tokens
		{320 - 19 - 1, false}, // 319 bytes: 79 tokens
	} {
		history := []Message{{Role: provider.RoleUser, Text: strings.Repeat("h", tt.n)}}
		est := EstimateTokens(provider.Request{Messages: append(history, Message{Role: provider.RoleUser, Text: "now"})})
		sc := &fixture.Script{Responses: []fixture.Response{{Steps: []fixture.Step{textStep("SUM", 1)}}, {Steps: []fixture.Step{textStep("answer", 1)}}}}
		rec := &recording{p: fixtureprov.New(sc)}
		sink := &recorder{}
		res, err := Run(context.Background(), Config{Provider: rec, ContextWindow: 100}, history, "now", sink)
		if err != nil {
			t.Fatalf("n=%d: %v", tt.n, err)
		}
		compacted := len(kinds(sink.events, "compaction")) == 1
		if compacted != tt.compact {
			t.Errorf("estimate %d tokens of a 100-token window: compacted = %v; want %v (events %q)", est, compacted, tt.compact, sink.events)
		}
		wantText := "SUM" // the first response is the answer when nothing compacts
		if tt.compact {
			wantText = "answer"
		}
		if got := res.Messages[len(res.Messages)-1].Text; got != wantText {
			t.Errorf("n=%d: reply %q; want %q", tt.n, got, wantText)
		}
	}
}

// TestCompactionSummaryBound: a summary of exactly MaxSummaryBytes is
// accepted; one byte more fails the compaction (reported failed, the run
// goes on uncompacted). Reasoning summaries and tool calls in the
// summarisation answer are ignored.
func TestCompactionSummaryBound(t *testing.T) {
	history := []Message{{Role: provider.RoleUser, Text: strings.Repeat("h", 400)}}
	for _, tt := range []struct {
		name    string
		steps   []fixture.Step
		summary string // "" when the compaction must fail
	}{
		{"at the bound", []fixture.Step{textStep(strings.Repeat("s", 1024), MaxSummaryBytes/1024)}, strings.Repeat("s", MaxSummaryBytes)},
		{"one byte over", []fixture.Step{textStep(strings.Repeat("s", 1024), MaxSummaryBytes/1024), textStep("!", 1)}, ""},
		{"reasoning and calls ignored", []fixture.Step{
			{ReasoningSummary: ptr("thinking")}, textStep("S1", 1), callStep("noop"), textStep(" S2 ", 1),
		}, "S1 S2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc := &fixture.Script{Responses: []fixture.Response{{Steps: tt.steps}, {Steps: []fixture.Step{textStep("answer", 1)}}}}
			sink := &recorder{}
			res, err := Run(context.Background(), Config{Provider: fixtureprov.New(sc), ContextWindow: 100}, history, "now", sink)
			if err != nil || res.Outcome != Completed {
				t.Fatalf("Run = %s, %v", res.Outcome, err)
			}
			acts := kinds(sink.events, "activity")
			if len(acts) != 2 {
				t.Fatalf("activities %q", acts)
			}
			stored := kinds(sink.events, "compaction")
			if tt.summary == "" {
				if !strings.HasSuffix(acts[1], "failed compaction failed") || len(stored) != 0 {
					t.Errorf("activities %q, stored %d; want a failed compaction, none stored", acts, len(stored))
				}
				return
			}
			want := `compaction "` + tt.summary + `" kept=["user:now"]`
			if len(stored) != 1 || stored[0] != want {
				t.Errorf("stored %.80q; want %.80q", stored, want)
			}
			if !strings.Contains(acts[1], "completed") {
				t.Errorf("activities %q", acts)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

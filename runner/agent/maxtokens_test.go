package agent

import (
	"context"
	"testing"

	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// TestMaxTokens: Result.MaxTokens is true only when the run completed and
// its last response was ended by the output token limit; a cut response
// earlier in the run (one that called a tool) does not count, nor does a
// failed run.
func TestMaxTokens(t *testing.T) {
	for _, tt := range []struct {
		name   string
		script string
		want   bool
		out    Outcome
	}{
		{"last response cut", `{"responses":[{"steps":[{"text":"half"},{"stop":"max_tokens"}]}]}`, true, Completed},
		{"not cut", `{"responses":[{"steps":[{"text":"whole"}]}]}`, false, Completed},
		{"an earlier response cut", `{"responses":[{"steps":[{"tool_call":{"name":"noop"}},{"stop":"max_tokens"}]},{"steps":[{"text":"done"}]}]}`, false, Completed},
		{"cut after a tool round", `{"responses":[{"steps":[{"tool_call":{"name":"noop"}}]},{"steps":[{"text":"ha"},{"stop":"max_tokens"}]}]}`, true, Completed},
		{"failed after the stop step", `{"responses":[{"steps":[{"stop":"max_tokens"},{"error":"execution_failed"}]}]}`, false, Failed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Provider: fixtureprov.New(parse(t, tt.script)), Tools: tools.NewSet(noop{}), Approval: ApprovalAuto}
			res, _ := Run(context.Background(), cfg, nil, "go", &recorder{})
			if res.Outcome != tt.out || res.MaxTokens != tt.want {
				t.Errorf("Run = %s, MaxTokens %v; want %s, %v", res.Outcome, res.MaxTokens, tt.out, tt.want)
			}
		})
	}
}

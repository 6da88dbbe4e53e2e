package agent

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/tools"
)

// usageRecorder is a recorder that takes usage.
type usageRecorder struct {
	recorder
	usage []string
}

func (u *usageRecorder) Usage(us provider.Usage, source string) error {
	u.usage = append(u.usage, fmt.Sprintf("%s %d/%d", source, us.InputTokens, us.OutputTokens))
	return nil
}

// TestUsageSources: every model call of a run reports its usage to the
// sink, with where it came from: the run's own responses (turn), a
// subagent's (subagent) and a compaction's summary request (compaction),
// in the order the responses ended.
func TestUsageSources(t *testing.T) {
	use := func(in, out int) string {
		return fmt.Sprintf(`{"usage":{"input_tokens":%d,"output_tokens":%d}}`, in, out)
	}
	call := `{"tool_call":{"name":"task","arguments":{"profile":"p","prompt":"go"}}}`
	script := `{"responses":[{"steps":[` + call + `,` + use(10, 1) + `]},{"steps":[{"text":"sub"},` + use(20, 2) + `]},` +
		`{"steps":[{"text":"done"},` + use(30, 3) + `]}]}`
	cfg := Config{Provider: fixtureprov.New(parse(t, script)), Model: "m", Tools: tools.NewSet(named("alpha")), Subagents: []Subagent{{Name: "p"}}}
	sink := &usageRecorder{}
	if _, err := Run(context.Background(), cfg, nil, "go", sink); err != nil {
		t.Fatal(err)
	}
	if want := []string{"turn 10/1", "subagent 20/2", "turn 30/3"}; !reflect.DeepEqual(sink.usage, want) {
		t.Fatalf("usage %q; want %q", sink.usage, want)
	}

	older := []Message{{Role: provider.RoleUser, Text: "question"}, {Role: provider.RoleAssistant, Text: "answer"}}
	cfg = Config{Provider: fixtureprov.New(parse(t, `{"responses":[{"steps":[{"text":"SUM"},`+use(40, 4)+`]}]}`)), Model: "m",
		Tools: tools.NewSet(noop{}), ContextWindow: 1_000_000}
	sink = &usageRecorder{}
	if _, err := Compact(context.Background(), cfg, older, "", sink); err != nil {
		t.Fatal(err)
	}
	if want := []string{"compaction 40/4"}; !reflect.DeepEqual(sink.usage, want) {
		t.Fatalf("compaction usage %q; want %q", sink.usage, want)
	}
}

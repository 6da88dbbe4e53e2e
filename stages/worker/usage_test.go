package worker

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/stages/wire"
)

// usageProvider answers every call with one text delta, then the token
// counts of usages (one per call, in order), then Done: the provider
// stream a real provider makes once it reports usage.
type usageProvider struct {
	usages []provider.Usage
	calls  int
}

func (u *usageProvider) Stream(ctx context.Context, req provider.Request, emit func(provider.StreamEvent) error) error {
	us := u.usages[u.calls]
	u.calls++
	for _, ev := range []provider.StreamEvent{{Kind: provider.TextDelta, Text: "ok"}, {Kind: provider.UsageKind, Usage: us}, {Kind: provider.Done}} {
		if err := emit(ev); err != nil {
			return err
		}
	}
	return nil
}

// TestTurnUsage: a response's usage is recorded in the session (a usage
// record naming the model) either way, and offered as a usage event only
// to a client that required the usage capability, with the model's
// context window (settings context_window here); counts a broken
// provider reports outside the stored bounds are clamped.
func TestTurnUsage(t *testing.T) {
	for _, caps := range [][]string{nil, {protocol.CapabilityUsage}, {"status"}} {
		required := len(caps) == 1 && caps[0] == protocol.CapabilityUsage
		t.Run(strings.Join(caps, ","), func(t *testing.T) {
			p, events, sid, _ := agentPoolCaps(t, caps, `{"responses":[]}`, "model = \"m-1\"\ncontext_window = 64000", map[string]string{})
			up := &usageProvider{usages: []provider.Usage{
				{InputTokens: 1200, OutputTokens: 80, CachedInputTokens: 1024, ReasoningTokens: 16},
				{InputTokens: -5, OutputTokens: 1 << 62},
			}}
			p.rt.runner = runnerWith(t, p, up)
			for i := range 2 {
				evs := runTurn(t, p, events, sid, "hello")
				var usage []wire.Event
				for _, e := range evs {
					if e.Name == protocol.EventUsage {
						usage = append(usage, e)
					}
				}
				if !required {
					if len(usage) != 0 {
						t.Fatalf("usage events without the capability: %+v", usage)
					}
					continue
				}
				want := up.usages[i]
				if i == 1 {
					want = provider.Usage{OutputTokens: 999_999_999_999_999}
				}
				if len(usage) != 1 || usage[0].InputTokens != want.InputTokens || usage[0].OutputTokens != want.OutputTokens ||
					usage[0].CachedInputTokens != want.CachedInputTokens || usage[0].ReasoningTokens != want.ReasoningTokens ||
					usage[0].ContextWindow != 64000 || usage[0].SessionID != sid || usage[0].RunID == "" {
					t.Fatalf("turn %d: usage events %+v; want one of %+v", i, usage, want)
				}
			}
			// The session file holds both records.
			var lines []string
			f, err := os.Open(filepath.Join(p.rt.runner.SessionsDir(), sid+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if strings.Contains(sc.Text(), `"type":"usage"`) {
					lines = append(lines, sc.Text())
				}
			}
			if len(lines) != 2 || !strings.Contains(lines[0], `"model":"m-1","run_id":`) ||
				!strings.Contains(lines[0], `"input_tokens":1200,"output_tokens":80,"cached_input_tokens":1024,"reasoning_tokens":16}`) ||
				!strings.Contains(lines[1], `"input_tokens":0,"output_tokens":999999999999999}`) {
				t.Fatalf("usage records %q", lines)
			}
		})
	}
}

// runnerWith rebuilds the pool's runtime with prov as its provider.
func runnerWith(t *testing.T, p *Pool, prov runner.Provider) *runner.Runtime {
	t.Helper()
	adm, code := runner.Admit(context.Background(), p.opts.Env)
	if code != "" {
		t.Fatal(code)
	}
	opts := p.opts.Runner
	opts.WrapProvider = func(runner.Provider) runner.Provider { return prov }
	rt, code := runner.New(context.Background(), adm, opts)
	if code != "" {
		t.Fatal(code)
	}
	t.Cleanup(func() { _ = rt.Close(context.Background()) })
	return rt
}

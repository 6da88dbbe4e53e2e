package fixtureprov

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/fixture"
	"github.com/magi-code/magi-code/runner/provider"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func mustParse(t testing.TB, s string) *fixture.Script {
	t.Helper()
	sc, err := fixture.Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return sc
}

// collect runs one Stream call and renders its events compactly.
func collect(p *Provider, prompt string) ([]string, error) {
	var got []string
	req := provider.Request{Messages: []provider.Message{
		{Role: provider.RoleUser, Text: "older"},
		{Role: provider.RoleAssistant, Text: "reply"},
		{Role: provider.RoleUser, Text: prompt},
	}}
	err := p.Stream(context.Background(), req, func(ev provider.StreamEvent) error {
		switch ev.Kind {
		case provider.TextDelta:
			got = append(got, "text:"+ev.Text)
		case provider.ReasoningSummary:
			got = append(got, "summary:"+ev.Text)
		case provider.ToolCallKind:
			got = append(got, "call:"+ev.Call.ID+":"+ev.Call.Name+":"+string(ev.Call.Arguments))
		case provider.UsageKind:
			u := ev.Usage
			got = append(got, fmt.Sprintf("usage:%d/%d/%d/%d", u.InputTokens, u.OutputTokens, u.CachedInputTokens, u.ReasoningTokens))
		case provider.Done:
			got = append(got, "done")
		}
		return nil
	})
	return got, err
}

func TestStream(t *testing.T) {
	tests := []struct {
		name     string
		script   string // "" means no script
		calls    int
		want     [][]string
		wantCode []protocol.Code // per call; "" for success
	}{
		{
			name:  "no script echoes",
			calls: 2,
			want:  [][]string{{"text:echo: hi", "done"}, {"text:echo: hi", "done"}},
		},
		{
			name:   "text repeat summary",
			script: `{"responses":[{"steps":[{"text":"a"},{"text":"b","repeat":3},{"reasoning_summary":"thinking"}]}]}`,
			calls:  2,
			want:   [][]string{{"text:a", "text:b", "text:b", "text:b", "summary:thinking", "done"}, {"text:echo: hi", "done"}},
		},
		{
			name: "tool call ids continue across responses",
			script: `{"responses":[
				{"steps":[{"tool_call":{"name":"shell","arguments":{"command":"echo hi"}}},{"tool_call":{"name":"read_file"}}]},
				{"steps":[{"tool_call":{"name":"list_dir","arguments":{"path":"."}}}]}]}`,
			calls: 2,
			want: [][]string{
				{`call:call_1:shell:{"command":"echo hi"}`, "call:call_2:read_file:{}", "done"},
				{`call:call_3:list_dir:{"path":"."}`, "done"},
			},
		},
		{
			name:     "error codes are safe",
			script:   `{"responses":[{"steps":[{"text":"x"},{"error":"content_limit"}]},{"steps":[{"error":"secret sk-not-a-code"}]},{"steps":[{"error":"output_unavailable"}]}]}`,
			calls:    3,
			want:     [][]string{{"text:x"}, nil, nil},
			wantCode: []protocol.Code{protocol.CodeContentLimit, protocol.CodeExecutionFailed, protocol.CodeOutputUnavailable},
		},
		{
			name:   "usage",
			script: `{"responses":[{"steps":[{"text":"a"},{"usage":{"input_tokens":120,"output_tokens":7,"cached_input_tokens":100,"reasoning_tokens":3}}]},{"steps":[{"usage":{"input_tokens":5,"output_tokens":1}}]}]}`,
			calls:  2,
			want:   [][]string{{"text:a", "usage:120/7/100/3", "done"}, {"usage:5/1/0/0", "done"}},
		},
		{
			name:   "zero sleep",
			script: `{"responses":[{"steps":[{"sleep_ms":0},{"text":"z"}]}]}`,
			calls:  1,
			want:   [][]string{{"text:z", "done"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sc *fixture.Script
			if tc.script != "" {
				sc = mustParse(t, tc.script)
			}
			p := New(sc)
			for i := 0; i < tc.calls; i++ {
				got, err := collect(p, "hi")
				if !reflect.DeepEqual(got, tc.want[i]) {
					t.Errorf("call %d: events = %q; want %q", i, got, tc.want[i])
				}
				var want protocol.Code
				if tc.wantCode != nil {
					want = tc.wantCode[i]
				}
				var pe *provider.Error
				switch {
				case want == "" && err != nil:
					t.Errorf("call %d: err = %v; want nil", i, err)
				case want != "" && (!errors.As(err, &pe) || pe.Code != want):
					t.Errorf("call %d: err = %v; want code %s", i, err, want)
				case err != nil && strings.Contains(err.Error(), "sk-"):
					t.Errorf("call %d: error text leaks script text: %q", i, err.Error())
				}
			}
		})
	}
}

func TestEmitErrorAborts(t *testing.T) {
	p := New(mustParse(t, `{"responses":[{"steps":[{"text":"x","repeat":1000},{"text":"never"}]}]}`))
	stop := errors.New("stop")
	n := 0
	err := p.Stream(context.Background(), provider.Request{}, func(ev provider.StreamEvent) error {
		n++
		if n == 10 {
			return stop
		}
		return nil
	})
	if err != stop || n != 10 {
		t.Fatalf("Stream = %v after %d events; want stop after 10", err, n)
	}
}

func TestSleepCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(mustParse(t, `{"responses":[{"steps":[{"text":"a"},{"sleep_ms":60000},{"text":"late"}]}]}`))
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		var texts []string
		err := p.Stream(ctx, provider.Request{}, func(ev provider.StreamEvent) error {
			if ev.Kind == provider.TextDelta {
				texts = append(texts, ev.Text)
				// Cancel 5 s (bubble time) into the minute-long sleep.
				time.AfterFunc(5*time.Second, cancel)
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Stream = %v; want context.Canceled", err)
		}
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("returned after %v; want 5s", d)
		}
		if !reflect.DeepEqual(texts, []string{"a"}) {
			t.Errorf("texts = %q", texts)
		}
		cancel()
	})
}

func TestSleepCompletes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New(mustParse(t, `{"responses":[{"steps":[{"sleep_ms":1500},{"text":"b"}]}]}`))
		start := time.Now()
		got, err := collect(p, "x")
		if err != nil || !reflect.DeepEqual(got, []string{"text:b", "done"}) {
			t.Fatalf("got %q, %v", got, err)
		}
		if d := time.Since(start); d != 1500*time.Millisecond {
			t.Errorf("slept %v; want 1.5s", d)
		}
	})
}

func TestCancelledFloodStops(t *testing.T) {
	p := New(mustParse(t, `{"responses":[{"steps":[{"text":"x","repeat":1000000}]}]}`))
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := p.Stream(ctx, provider.Request{}, func(provider.StreamEvent) error {
		n++
		if n == 1 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n > ctxCheckEvery {
		t.Fatalf("Stream = %v after %d deltas; want Canceled within %d", err, n, ctxCheckEvery)
	}
}

// BenchmarkFlood replays 1,000,000 deltas of 100 bytes through a no-op emit.
func BenchmarkFlood(b *testing.B) {
	text := strings.Repeat("y", 100)
	sc := &fixture.Script{Responses: []fixture.Response{{Steps: []fixture.Step{{Text: &text, Repeat: 1_000_000}}}}}
	var n int
	emit := func(ev provider.StreamEvent) error { n += len(ev.Text); return nil }
	b.ReportAllocs()
	for b.Loop() {
		p := New(sc)
		if err := p.Stream(context.Background(), provider.Request{}, emit); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "deltas/s")
}

// A call made with an ended ctx still consumes its response: script
// positions never depend on how a cancellation raced with the call.
func TestCancelledCallConsumes(t *testing.T) {
	p := New(mustParse(t, `{"responses":[{"steps":[{"text":"first"}]},{"steps":[{"text":"second"}]}]}`))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	streamed := false
	err := p.Stream(ctx, provider.Request{}, func(provider.StreamEvent) error { streamed = true; return nil })
	if err == nil || streamed {
		t.Fatalf("cancelled call: err %v, streamed %v; want an error and nothing streamed", err, streamed)
	}
	if got, err := collect(p, "x"); err != nil || strings.Join(got, ",") != "text:second,done" {
		t.Fatalf("next call = %v, %v; want the second response", got, err)
	}
}

// A script's {"error": REASON} step fails as a real provider does for that
// reason: unauthorized with provider_unavailable, the others with
// execution_failed; a protocol code stays a code without a reason.
func TestErrorReasons(t *testing.T) {
	for _, c := range []struct {
		step   string
		code   string
		reason provider.Reason
	}{
		{"rate_limited", "execution_failed", provider.ReasonRateLimited},
		{"unauthorized", "provider_unavailable", provider.ReasonUnauthorized},
		{"model_not_found", "execution_failed", provider.ReasonModelNotFound},
		{"context_too_long", "execution_failed", provider.ReasonContextTooLong},
		{"network", "execution_failed", provider.ReasonNetwork},
		{"content_limit", "content_limit", provider.ReasonUnknown},
		{"unknown", "execution_failed", provider.ReasonUnknown},
	} {
		p := New(mustParse(t, `{"responses":[{"steps":[{"error":"`+c.step+`"}]}]}`))
		_, err := collect(p, "hi")
		var pe *provider.Error
		if !errors.As(err, &pe) || string(pe.Code) != c.code || pe.Reason != c.reason {
			t.Errorf("%s: err %v (%+v); want %s with reason %s", c.step, err, pe, c.code, c.reason)
		}
	}
}

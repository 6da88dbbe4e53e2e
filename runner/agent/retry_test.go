package agent

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider"
)

// flaky fails its first calls with HTTP 503 and a retry-after-ms of the
// wait given, then answers with text.
type flaky struct {
	waits []time.Duration
	calls int
}

func (f *flaky) Stream(ctx context.Context, req provider.Request, emit func(provider.StreamEvent) error) error {
	f.calls++
	if f.calls <= len(f.waits) {
		return &provider.Error{Code: protocol.CodeExecutionFailed, Status: 503, Reason: provider.ReasonOverloaded,
			Retry: provider.RetryHint{AfterMS: strconv.FormatInt(f.waits[f.calls-1].Milliseconds(), 10)}}
	}
	return emit(provider.StreamEvent{Kind: provider.TextDelta, Text: "ok"})
}

// TestRetryDiagnostic: a provider call whose retries wait a second or
// less in all is only logged; once the waits pass a second, each further
// retry is a provider_retry diagnostic that says what failed, the wait and
// the attempt. The run completes either way.
func TestRetryDiagnostic(t *testing.T) {
	for _, tc := range []struct {
		name  string
		waits []time.Duration // the waits of the retries, in order
		want  []string        // the diagnostics
	}{
		{"short", []time.Duration{400 * time.Millisecond, 600 * time.Millisecond}, nil},
		{"long", []time.Duration{400 * time.Millisecond, 700 * time.Millisecond, 3 * time.Second}, []string{
			"diag provider_retry provider call failed (provider_error, HTTP 503); retrying in 700ms (attempt 3 of 4)",
			"diag provider_retry provider call failed (provider_error, HTTP 503); retrying in 3s (attempt 4 of 4)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := provider.Retrying(&flaky{waits: tc.waits}, provider.RetryPolicy{
				MaxRetries: 3,
				Sleep:      func(ctx context.Context, d time.Duration) error { return ctx.Err() },
			})
			rec := &recorder{}
			if _, err := Run(context.Background(), Config{Provider: p, Model: "m"}, nil, "hi", rec); err != nil {
				t.Fatal(err)
			}
			var diags []string
			for _, e := range rec.events {
				if strings.HasPrefix(e, "diag ") {
					diags = append(diags, e)
				}
			}
			if !slices.Equal(diags, tc.want) {
				t.Fatalf("diagnostics %q; want %q", diags, tc.want)
			}
		})
	}
}

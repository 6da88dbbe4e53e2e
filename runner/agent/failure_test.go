package agent

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider"
)

// TestFailureDetail: the log's words for a failed run are the provider's
// reason and HTTP status and the innermost cause's own words, whatever
// wraps them; the codes alone say nothing more; long causes are cut at a
// rune boundary within the bound.
func TestFailureDetail(t *testing.T) {
	long := strings.Repeat("é", FailureDetailBytes)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"code only", &Error{Code: protocol.CodeExecutionFailed}, ""},
		{"round limit", ErrRoundLimit, "provider rounds over the per-run cap"},
		{"provider status", &Error{Code: protocol.CodeExecutionFailed, Err: &provider.Error{Code: protocol.CodeExecutionFailed, Reason: provider.ReasonRateLimited, Status: 429}},
			"provider call failed: rate_limited, HTTP 429"},
		{"provider cause", &Error{Code: protocol.CodeExecutionFailed, Err: provider.Failed(errors.New("openai: tool calls over the per-response bound"))},
			"provider call failed: unknown: openai: tool calls over the per-response bound"},
		{"wrapped", fmt.Errorf("run: %w", &Error{Code: protocol.CodeExecutionFailed, Err: provider.Failed(fmt.Errorf("dial: %w", syscall.ECONNREFUSED))}),
			"provider call failed: network: dial: " + syscall.ECONNREFUSED.Error()},
		{"a wrapper above a coded error", fmt.Errorf("turn: %w", &Error{Code: protocol.CodeExecutionFailed}), ""},
		{"network", &Error{Code: protocol.CodeExecutionFailed, Err: provider.Failed(fmt.Errorf("dial: %w", syscall.ECONNREFUSED))},
			"provider call failed: network: dial: " + syscall.ECONNREFUSED.Error()},
		{"a sink's error", &Error{Code: protocol.CodeOutputUnavailable, Err: errors.New("sink: queue closed")}, "sink: queue closed"},
	} {
		if got := FailureDetail(c.err); got != c.want {
			t.Errorf("%s: %q; want %q", c.name, got, c.want)
		}
	}
	got := FailureDetail(&Error{Code: protocol.CodeExecutionFailed, Err: errors.New(long)})
	if !utf8.ValidString(got) || len(got) > FailureDetailBytes+len("...") || !strings.HasSuffix(got, "...") || !strings.HasPrefix(long, strings.TrimSuffix(got, "...")) {
		t.Errorf("a long cause: %d bytes %q...", len(got), got[:20])
	}
}

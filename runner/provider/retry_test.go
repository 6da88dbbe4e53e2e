package provider

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"testing"
	"time"
)

var now = time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)

func TestRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		h    RetryHint
		want time.Duration
		ok   bool
	}{
		{RetryHint{After: "3"}, 3 * time.Second, true},
		{RetryHint{After: " 2.5 "}, 2500 * time.Millisecond, true},
		{RetryHint{After: "0"}, 0, true},
		{RetryHint{AfterMS: "250"}, 250 * time.Millisecond, true},
		{RetryHint{AfterMS: "250", After: "9"}, 250 * time.Millisecond, true}, // milliseconds first
		{RetryHint{AfterMS: "x", After: "9"}, 9 * time.Second, true},
		{RetryHint{After: now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second, true},
		{RetryHint{After: now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true}, // past: no wait
		{RetryHint{After: "Sunday, 06-Dec-26 05:00:30 GMT"}, 0, true},            // RFC 850, past
		{RetryHint{After: "-1"}, 0, false},
		{RetryHint{After: "NaN"}, 0, false},
		{RetryHint{After: "soon"}, 0, false},
		{RetryHint{}, 0, false},
		{RetryHint{After: "1e400"}, time.Duration(math.MaxInt64), true}, // saturates
	} {
		got, ok := RetryAfter(tc.h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RetryAfter(%+v) = %v, %t; want %v, %t", tc.h, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "2.5", "-1", "1e400", "Inf", now.Format(http.TimeFormat), "", "0x10"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, after, ms string) {
		d, ok := RetryAfter(RetryHint{After: after, AfterMS: ms}, now)
		if d < 0 || (!ok && d != 0) {
			t.Fatalf("RetryAfter(%q, %q) = %v, %t", after, ms, d, ok)
		}
	})
}

func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		status int
		reason Reason
		should string
		want   bool
	}{
		{0, ReasonNetwork, "", true},
		{0, ReasonBadResponse, "", false}, // a cut answer is not sent again
		{0, ReasonUnknown, "", false},
		{408, ReasonNetwork, "", true},
		{409, ReasonBadRequest, "", true},
		{429, ReasonRateLimited, "", true},
		{429, ReasonQuota, "", false},
		{500, ReasonOverloaded, "", true},
		{503, ReasonOverloaded, "", true},
		{529, ReasonOverloaded, "", true},
		{400, ReasonBadRequest, "", false},
		{401, ReasonUnauthorized, "", false},
		{404, ReasonModelNotFound, "", false},
		{413, ReasonContextTooLong, "", false},
		{400, ReasonBadRequest, "true", true},
		{503, ReasonOverloaded, "false", false},
		{0, ReasonNetwork, "false", false},
	} {
		if got := Retryable(tc.status, tc.reason, RetryHint{Should: tc.should}); got != tc.want {
			t.Errorf("Retryable(%d, %s, %q) = %t", tc.status, tc.reason, tc.should, got)
		}
	}
}

// fake answers each call with the next of errs (nil: emits text and
// succeeds); emitFirst makes a failing call emit a delta first.
type fake struct {
	errs      []error
	emitFirst bool
	calls     int
}

func (f *fake) Stream(ctx context.Context, _ Request, emit func(StreamEvent) error) error {
	err := f.errs[min(f.calls, len(f.errs)-1)]
	f.calls++
	if err == nil || f.emitFirst {
		if e := emit(StreamEvent{Kind: TextDelta, Text: "x"}); e != nil {
			return e
		}
	}
	return err
}

type recorder struct {
	waits []time.Duration
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return ctx.Err()
}

func status(code int, h RetryHint) error {
	return &Error{Code: "execution_failed", Status: code, Reason: Classify(code, "", "", "", nil), Retry: h}
}

var network = &Error{Code: "execution_failed", Reason: ReasonNetwork}

func TestRetrying(t *testing.T) {
	jitter := func(j float64) func() float64 { return func() float64 { return j } }
	for _, tc := range []struct {
		name      string
		errs      []error
		emitFirst bool
		policy    RetryPolicy
		wantCalls int
		wantWaits []time.Duration
		wantErr   bool
	}{
		{"success", []error{nil}, false, RetryPolicy{}, 1, nil, false},
		{"backoff", []error{network, network, nil}, false, RetryPolicy{Jitter: jitter(0)}, 3, []time.Duration{500 * time.Millisecond, time.Second}, false},
		{"jitter takes up to a quarter", []error{network, nil}, false, RetryPolicy{Jitter: jitter(0.5)}, 2, []time.Duration{437500 * time.Microsecond}, false},
		{"bounded", []error{network}, false, RetryPolicy{Jitter: jitter(0)}, 3, []time.Duration{500 * time.Millisecond, time.Second}, true},
		{"more retries", []error{network}, false, RetryPolicy{MaxRetries: 6, Jitter: jitter(0)}, 7,
			[]time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}, true},
		{"disabled", []error{network}, false, RetryPolicy{MaxRetries: -1}, 1, nil, true},
		{"retry-after", []error{status(429, RetryHint{After: "4"}), nil}, false, RetryPolicy{}, 2, []time.Duration{4 * time.Second}, false},
		{"retry-after date", []error{status(503, RetryHint{After: now.Add(10 * time.Second).Format(http.TimeFormat)}), nil}, false, RetryPolicy{}, 2, []time.Duration{10 * time.Second}, false},
		{"retry-after-ms", []error{status(529, RetryHint{AfterMS: "20"}), nil}, false, RetryPolicy{}, 2, []time.Duration{20 * time.Millisecond}, false},
		{"retry-after too long", []error{status(429, RetryHint{After: "61"})}, false, RetryPolicy{}, 1, nil, true},
		{"retry-after at the bound", []error{status(429, RetryHint{After: "60"}), nil}, false, RetryPolicy{}, 2, []time.Duration{time.Minute}, false},
		{"stale connection at once", []error{&Error{Reason: ReasonNetwork, Stale: true}, &Error{Reason: ReasonNetwork, Stale: true}, nil}, false,
			RetryPolicy{Jitter: jitter(0)}, 3, []time.Duration{0, time.Second}, false},
		{"not retryable", []error{status(400, RetryHint{})}, false, RetryPolicy{}, 1, nil, true},
		{"not a provider error", []error{errors.New("credential")}, false, RetryPolicy{}, 1, nil, true},
		{"never after an event", []error{network}, true, RetryPolicy{}, 1, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{errs: tc.errs, emitFirst: tc.emitFirst}
			var rec recorder
			tc.policy.Sleep, tc.policy.Now = rec.sleep, func() time.Time { return now }
			var traced []Retry
			ctx := WithRetryTrace(context.Background(), func(r Retry) { traced = append(traced, r) })
			err := Retrying(f, tc.policy).Stream(ctx, Request{}, func(StreamEvent) error { return nil })
			if (err != nil) != tc.wantErr || f.calls != tc.wantCalls || !slices.Equal(rec.waits, tc.wantWaits) {
				t.Fatalf("err %v, %d calls, waits %v; want error %t, %d calls, waits %v", err, f.calls, rec.waits, tc.wantErr, tc.wantCalls, tc.wantWaits)
			}
			if len(traced) != len(rec.waits) {
				t.Fatalf("%d retries traced; want %d", len(traced), len(rec.waits))
			}
			attempts := 3
			if tc.policy.MaxRetries != 0 {
				attempts = max(tc.policy.MaxRetries, 0) + 1
			}
			var sum time.Duration
			for i, r := range traced {
				sum += rec.waits[i]
				if r.Attempt != i+1 || r.Delay != rec.waits[i] || r.Waited != sum || r.Attempts != attempts {
					t.Fatalf("trace %d: %+v", i, r)
				}
			}
		})
	}
}

// TestRetryingCancel: cancellation during a wait ends the call at once
// with the context's error, and no further attempt is made.
func TestRetryingCancel(t *testing.T) {
	f := &fake{errs: []error{network}}
	ctx, cancel := context.WithCancel(context.Background())
	p := Retrying(f, RetryPolicy{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	}})
	err := p.Stream(ctx, Request{}, func(StreamEvent) error { return nil })
	if !errors.Is(err, context.Canceled) || f.calls != 1 {
		t.Fatalf("err %v after %d calls; want context.Canceled after 1", err, f.calls)
	}
	// The default sleeper returns at once on a cancelled context.
	if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("sleep: %v", err)
	}
}

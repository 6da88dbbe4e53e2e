package provider

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retries, as the official OpenAI and Anthropic SDKs make them by default,
// in one place for every HTTP provider: a call that failed before the
// stream began (nothing was emitted) is sent again when the failure is one
// a second try can cure: no HTTP answer (a refused or reset connection, a
// kept-alive connection the server had closed), 408, 409, 429 or 5xx. The
// SDKs' own retries are off: their waits cannot be observed, injected or
// reported.
const (
	// DefaultMaxRetries is the SDKs' default: three attempts in all.
	DefaultMaxRetries = 2
	// MaxRetryAfter is the longest Retry-After honoured; a server asking
	// for a longer wait gets no retry (the failure is reported at once).
	MaxRetryAfter = 60 * time.Second
	// backoffBase and backoffMax shape the backoff without Retry-After:
	// 0.5 s, 1 s, 2 s, ... at most 8 s, less up to a quarter of jitter.
	backoffBase = 500 * time.Millisecond
	backoffMax  = 8 * time.Second
)

// RetryHint is what an HTTP answer said about retrying, as received: the
// Retry-After, retry-after-ms and x-should-retry header values. The wait
// is computed when the retry is decided (RetryPolicy.delay), with the
// policy's clock.
type RetryHint struct {
	After, AfterMS, Should string
}

// HintOf returns the retry headers of h (nil: none).
func HintOf(h http.Header) RetryHint {
	if h == nil {
		return RetryHint{}
	}
	return RetryHint{After: h.Get("Retry-After"), AfterMS: h.Get("Retry-After-Ms"), Should: h.Get("X-Should-Retry")}
}

// Retry describes one retry about to wait: the attempt that failed
// (1-based) of Attempts in all, the wait before the next, the waits of
// this call so far with this one (Waited), and why.
type Retry struct {
	Attempt, Attempts int
	Delay, Waited     time.Duration
	Status            int // the failed attempt's HTTP status; 0: no answer
	Reason            Reason
}

type retryTraceKey struct{}

// WithRetryTrace returns ctx carrying fn, which a Retrying provider calls
// before each wait, from the goroutine that called Stream (as
// net/http/httptrace does for connections). The agent turns a long wait
// into a diagnostic event.
func WithRetryTrace(ctx context.Context, fn func(Retry)) context.Context {
	return context.WithValue(ctx, retryTraceKey{}, fn)
}

// RetryPolicy configures Retrying. The zero value retries
// DefaultMaxRetries times on the wall clock.
type RetryPolicy struct {
	// MaxRetries after the first attempt; 0 means DefaultMaxRetries, a
	// negative value disables retries.
	MaxRetries int
	// Now is the clock for Retry-After dates; nil is time.Now.
	Now func() time.Time
	// Sleep waits d or until ctx ends (returning ctx.Err()); nil waits on
	// a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0, 1); nil is math/rand.
	Jitter func() float64
	// Logf receives one line per retry; nil discards them.
	Logf func(format string, args ...any)
}

// Retrying returns p with retries (see RetryPolicy). A call is retried
// only while nothing has been emitted: once a text delta, summary, tool
// call or usage went to the caller the stream has begun, and any failure
// after that is the caller's. Cancellation ends a wait at once.
func Retrying(p Provider, policy RetryPolicy) Provider {
	if policy.MaxRetries == 0 {
		policy.MaxRetries = DefaultMaxRetries
	}
	if policy.Now == nil {
		policy.Now = time.Now
	}
	if policy.Sleep == nil {
		policy.Sleep = sleep
	}
	if policy.Jitter == nil {
		policy.Jitter = rand.Float64
	}
	if policy.Logf == nil {
		policy.Logf = func(string, ...any) {}
	}
	return &retrying{p: p, policy: policy}
}

type retrying struct {
	p      Provider
	policy RetryPolicy
}

func (r *retrying) Stream(ctx context.Context, req Request, emit func(StreamEvent) error) error {
	attempts := max(r.policy.MaxRetries, 0) + 1
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		emitted := false
		err := r.p.Stream(ctx, req, func(ev StreamEvent) error {
			emitted = true
			return emit(ev)
		})
		if err == nil || emitted || ctx.Err() != nil || attempt >= attempts {
			return err
		}
		var pe *Error
		if !errors.As(err, &pe) {
			return err // not the provider's answer (a credential, ...)
		}
		d, ok := r.policy.delay(pe, attempt)
		if !ok {
			return err
		}
		waited += d
		rt := Retry{Attempt: attempt, Attempts: attempts, Delay: d, Waited: waited, Status: pe.Status, Reason: pe.Reason}
		r.policy.Logf("provider: attempt %d of %d failed (HTTP %d, %s); retrying in %s",
			attempt, attempts, pe.Status, pe.Reason, d.Round(time.Millisecond))
		if fn, _ := ctx.Value(retryTraceKey{}).(func(Retry)); fn != nil {
			fn(rt)
		}
		if err := r.policy.Sleep(ctx, d); err != nil {
			return err
		}
	}
}

// Retryable reports whether a failure with this status, reason and hint
// may be sent again: no HTTP answer (status 0) for a network failure,
// 408, 409, 429 (not an exhausted quota) and 5xx; x-should-retry
// overrides the status either way.
func Retryable(status int, reason Reason, hint RetryHint) bool {
	switch strings.ToLower(strings.TrimSpace(hint.Should)) {
	case "true":
		return status != 0
	case "false":
		return false
	}
	switch {
	case status == 0:
		return reason == ReasonNetwork
	case reason == ReasonQuota:
		return false // no wait of seconds refills it
	}
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// delay returns the wait before retrying after attempt (1-based) failed
// with pe, and false when pe is not retried: the server's Retry-After
// (retry-after-ms, then Retry-After in seconds or as an HTTP date) when it
// gives one within MaxRetryAfter, else an exponential backoff with jitter.
// The first retry after a stale kept-alive connection (Error.Stale) does
// not wait: the next request opens a fresh connection.
func (p *RetryPolicy) delay(pe *Error, attempt int) (time.Duration, bool) {
	if !Retryable(pe.Status, pe.Reason, pe.Retry) {
		return 0, false
	}
	if pe.Stale && attempt == 1 {
		return 0, true // a kept-alive connection the server had closed
	}
	if d, ok := RetryAfter(pe.Retry, p.Now()); ok {
		return d, d <= MaxRetryAfter
	}
	d := backoffMax
	if attempt < 5 {
		d = min(backoffBase<<(attempt-1), backoffMax)
	}
	j := p.Jitter()
	if j < 0 || j >= 1 || math.IsNaN(j) {
		j = 0
	}
	return d - time.Duration(j*float64(d/4)), true
}

// RetryAfter parses the server's wait: retry-after-ms (milliseconds), else
// Retry-After as seconds or an HTTP date (relative to now; a date in the
// past is no wait). ok is false when neither header holds a valid value.
func RetryAfter(h RetryHint, now time.Time) (time.Duration, bool) {
	if d, ok := number(h.AfterMS, time.Millisecond); ok {
		return d, true
	}
	if d, ok := number(h.After, time.Second); ok {
		return d, true
	}
	if t, err := http.ParseTime(strings.TrimSpace(h.After)); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// number parses a non-negative decimal count of unit; a value too large
// for a Duration saturates (and so exceeds MaxRetryAfter).
func number(s string, unit time.Duration) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if (err != nil && !errors.Is(err, strconv.ErrRange)) || math.IsNaN(f) || f < 0 {
		return 0, false
	}
	if v := f * float64(unit); v < float64(math.MaxInt64) {
		return time.Duration(v), true
	}
	return time.Duration(math.MaxInt64), true
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

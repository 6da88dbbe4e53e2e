package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"testing"
)

// Classify decides from the status, the API's type and code, a message
// compared only, and the error's type; never from an error string.
func TestClassify(t *testing.T) {
	var syntax error
	if err := json.Unmarshal([]byte("{"), new(any)); err != nil {
		syntax = fmt.Errorf("decode: %w", err)
	}
	refused := &url.Error{Op: "Post", URL: "https://x", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}
	for _, c := range []struct {
		status             int
		typ, code, message string
		err                error
		want               Reason
	}{
		{429, "", "", "", nil, ReasonRateLimited},
		{429, "insufficient_quota", "", "", nil, ReasonQuota},
		{400, "billing_error", "", "", nil, ReasonQuota},
		{401, "", "", "", nil, ReasonUnauthorized},
		{403, "", "", "", nil, ReasonUnauthorized},
		{400, "authentication_error", "", "", nil, ReasonUnauthorized},
		{404, "", "", "", nil, ReasonModelNotFound},
		{400, "invalid_request_error", "model_not_found", "", nil, ReasonModelNotFound},
		{413, "", "", "", nil, ReasonContextTooLong},
		{400, "invalid_request_error", "context_length_exceeded", "", nil, ReasonContextTooLong},
		{400, "invalid_request_error", "", "Prompt is too long: 1 > 0", nil, ReasonContextTooLong},
		{400, "invalid_request_error", "", "rate_limit in the message is not a type", nil, ReasonBadRequest},
		{422, "", "", "", nil, ReasonBadRequest},
		{500, "", "", "", nil, ReasonOverloaded},
		{529, "overloaded_error", "", "", nil, ReasonOverloaded},
		{200, "overloaded_error", "", "", nil, ReasonOverloaded},
		{408, "", "", "", nil, ReasonNetwork},
		{0, "", "", "", refused, ReasonNetwork},
		{0, "", "", "", &net.DNSError{Err: "no such host", Name: "x"}, ReasonNetwork},
		{0, "", "", "", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), ReasonNetwork},
		{0, "", "", "", context.DeadlineExceeded, ReasonNetwork},
		{0, "", "", "", context.Canceled, ReasonUnknown},
		{0, "", "", "", syntax, ReasonBadResponse},
		{0, "", "", "", errors.New("connection refused"), ReasonUnknown}, // a string is never read
		{0, "", "", "", nil, ReasonUnknown},
	} {
		if got := Classify(c.status, c.typ, c.code, c.message, c.err); got != c.want {
			t.Errorf("Classify(%d, %q, %q, %q, %v) = %s; want %s", c.status, c.typ, c.code, c.message, c.err, got, c.want)
		}
	}
}

// Every reason has a name that round-trips and a summary for people that
// is a sentence without its (underscored) name; HTTPFailure keeps 401 and 403
// provider_unavailable.
func TestReasons(t *testing.T) {
	seen := map[string]bool{}
	for r := ReasonUnknown; r < reasonCount; r++ {
		s := r.Summary()
		if seen[s] || strings.Contains(s, r.String()) && strings.Contains(r.String(), "_") || len(s) > 1024 || !strings.Contains(s, " ") {
			t.Errorf("%s: summary %q", r, s)
		}
		seen[s] = true
		if got, ok := ReasonNamed(r.String()); r != ReasonUnknown && (!ok || got != r) {
			t.Errorf("ReasonNamed(%q) = %s, %v", r.String(), got, ok)
		}
	}
	if _, ok := ReasonNamed("unknown"); ok {
		t.Error("unknown is a reason name")
	}
	if e := HTTPFailure(401, nil, "", "", "", nil); e.Code != "provider_unavailable" || e.Reason != ReasonUnauthorized {
		t.Errorf("HTTPFailure(401) = %+v", e)
	}
	if e := HTTPFailure(429, nil, "", "", "", nil); e.Code != "execution_failed" || e.Reason != ReasonRateLimited {
		t.Errorf("HTTPFailure(429) = %+v", e)
	}
	if ReasonOf(fmt.Errorf("wrapped: %w", &Error{Code: "execution_failed", Reason: ReasonQuota})) != ReasonQuota {
		t.Error("ReasonOf does not see a wrapped *Error's reason")
	}
}

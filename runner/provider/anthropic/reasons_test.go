package anthropic

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/auth"
	"github.com/magi-code/magi-code/runner/provider"
)

// Each kind of failure gets its reason, from the status and the API's
// error type (and, for a prompt too long, its message, compared only); the
// reason's summary never holds the body.
func TestFailureReasons(t *testing.T) {
	answer := func(status int, typ, msg string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, `{"type":"error","error":{"type":"`+typ+`","message":"`+msg+`"}}`)
		}
	}
	const secret = "sk-ant-SECRETSECRETSECRET1234"
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    provider.Reason
	}{
		{"rate limited", answer(429, "rate_limit_error", "slow down "+secret), provider.ReasonRateLimited},
		{"unauthorized", answer(401, "authentication_error", "invalid x-api-key "+secret), provider.ReasonUnauthorized},
		{"forbidden", answer(403, "permission_error", secret), provider.ReasonUnauthorized},
		{"model not found", answer(404, "not_found_error", "model: claude-nope"), provider.ReasonModelNotFound},
		{"context too long", answer(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"), provider.ReasonContextTooLong},
		{"bad request", answer(400, "invalid_request_error", secret), provider.ReasonBadRequest},
		{"overloaded", answer(529, "overloaded_error", "Overloaded"), provider.ReasonOverloaded},
		{"billing", answer(400, "billing_error", secret), provider.ReasonQuota},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, tc.handler, Config{})
			err := p.Stream(context.Background(), provider.Request{Model: "claude-x", Messages: []provider.Message{{Role: "user", Text: "hi"}}},
				func(provider.StreamEvent) error { return nil })
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Reason != tc.want {
				t.Fatalf("err = %v (%+v); want reason %s", err, pe, tc.want)
			}
			if s := pe.Reason.Summary(); strings.Contains(s, "sk-") || strings.Contains(s, "210000") {
				t.Fatalf("summary %q quotes the answer", s)
			}
		})
	}

	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	p := New(Config{BaseURL: url, Credentials: auth.NewStatic(auth.APIKey, testKey)})
	err := p.Stream(context.Background(), provider.Request{Model: "claude-x", Messages: []provider.Message{{Role: "user", Text: "hi"}}},
		func(provider.StreamEvent) error { return nil })
	if provider.ReasonOf(err) != provider.ReasonNetwork {
		t.Fatalf("connection refused: err %v, reason %s; want network", err, provider.ReasonOf(err))
	}
}

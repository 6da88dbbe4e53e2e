package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/runner/provider"
)

// Each kind of failure gets its reason, from the status and the API's
// error code; the reason's summary never holds the body.
func TestFailureReasons(t *testing.T) {
	answer := func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
	const secret = "sk-SECRETSECRETSECRET1234"
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    provider.Reason
	}{
		{"rate limited", answer(429, `{"error":{"message":"slow down `+secret+`","type":"requests","code":"rate_limit_exceeded"}}`), provider.ReasonRateLimited},
		{"quota", answer(429, `{"error":{"message":"`+secret+`","type":"insufficient_quota","code":"insufficient_quota"}}`), provider.ReasonQuota},
		{"unauthorized", answer(401, `{"error":{"message":"bad key `+secret+`","type":"invalid_request_error","code":"invalid_api_key"}}`), provider.ReasonUnauthorized},
		{"model not found", answer(404, `{"error":{"message":"The model x does not exist","type":"invalid_request_error","code":"model_not_found"}}`), provider.ReasonModelNotFound},
		{"context too long", answer(400, `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`), provider.ReasonContextTooLong},
		{"bad request", answer(400, `{"error":{"message":"`+secret+`","type":"invalid_request_error","code":null}}`), provider.ReasonBadRequest},
		{"server error", answer(500, `internal trace at /home/user/.secret`), provider.ReasonOverloaded},
		{"cut", sse(chunk(`{"content":"par"}`, "")), provider.ReasonBadResponse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, tc.handler)
			err := p.Stream(context.Background(), provider.Request{Model: "m", Messages: []provider.Message{{Role: "user", Text: "hi"}}},
				func(provider.StreamEvent) error { return nil })
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Reason != tc.want || provider.ReasonOf(err) != tc.want {
				t.Fatalf("err = %v (%+v); want reason %s", err, pe, tc.want)
			}
			if s := pe.Reason.Summary(); strings.Contains(s, "sk-") || strings.Contains(s, "secret") || strings.Contains(s, "8192") {
				t.Fatalf("summary %q quotes the answer", s)
			}
		})
	}

	// No HTTP answer at all: the network.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	p := New(Config{BaseURL: url + "/v1", APIKey: "test-key"})
	err := p.Stream(context.Background(), provider.Request{Model: "m", Messages: []provider.Message{{Role: "user", Text: "hi"}}},
		func(provider.StreamEvent) error { return nil })
	if provider.ReasonOf(err) != provider.ReasonNetwork {
		t.Fatalf("connection refused: err %v, reason %s; want network", err, provider.ReasonOf(err))
	}
}

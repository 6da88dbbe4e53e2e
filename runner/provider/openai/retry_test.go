package openai

import (
	"context"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/providertest"
)

// TestKeptAliveConnectionDropped runs tool round trips against a server
// that reads the second request on each connection and closes it without
// an answer (llama.cpp's server after a streamed reply): every call but
// the first finds its kept-alive connection dead. Each call completes,
// through one retry on a fresh connection that does not wait.
func TestKeptAliveConnectionDropped(t *testing.T) {
	srv := providertest.NewDropServer(t, sse(
		chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"list_dir","arguments":""}}]}`, ""),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\".\"}"}}]}`, ""),
		chunk(`{}`, "tool_calls"), done))
	t.Cleanup(srv.Client().CloseIdleConnections)
	var sleeps providertest.Sleeps
	p := provider.Retrying(New(Config{BaseURL: srv.URL + "/v1", HTTPClient: srv.Client()}),
		provider.RetryPolicy{Sleep: sleeps.Sleep})
	const calls = 5
	for i := range calls {
		var got []provider.StreamEvent
		err := p.Stream(context.Background(), provider.Request{Model: "m", Messages: []provider.Message{{Role: provider.RoleUser, Text: "ls"}}},
			func(ev provider.StreamEvent) error { got = append(got, ev); return nil })
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if want := []string{`call:call_1:list_dir:{"path":"."}`, "done"}; !slices.Equal(render(got), want) {
			t.Fatalf("call %d: %q; want %q", i, render(got), want)
		}
	}
	providertest.CheckDropped(t, srv, &sleeps, calls)
}

// TestRetryStatuses: a 429 with Retry-After, then a 503, then an answer:
// one call, three requests, the waits the server asked for and the
// backoff; a 400 is not retried.
func TestRetryStatuses(t *testing.T) {
	// The count is taken before the answer is written: the client may send
	// its next request as soon as it has read this one's reply.
	var n atomic.Int32
	answers := []http.HandlerFunc{
		func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3")
			http.Error(w, `{"error":{"message":"slow down","type":"rate_limit_error"}}`, http.StatusTooManyRequests)
		},
		func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"message":"busy","type":"server_error"}}`, http.StatusServiceUnavailable)
		},
		sse(chunk(`{"content":"ok"}`, ""), chunk(`{}`, "stop"), done),
		func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"message":"bad","type":"invalid_request_error"}}`, http.StatusBadRequest)
		},
	}
	srv := startHandler(t, func(w http.ResponseWriter, r *http.Request) { answers[n.Add(1)-1](w, r) })
	var sleeps providertest.Sleeps
	p := provider.Retrying(New(Config{BaseURL: srv + "/v1"}), provider.RetryPolicy{Sleep: sleeps.Sleep, Jitter: func() float64 { return 0 }})
	var got []provider.StreamEvent
	if err := p.Stream(context.Background(), provider.Request{Model: "m"}, func(ev provider.StreamEvent) error { got = append(got, ev); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"text:ok", "done"}; !slices.Equal(render(got), want) {
		t.Fatalf("%q; want %q", render(got), want)
	}
	if w, want := sleeps.Waits(), []time.Duration{3 * time.Second, time.Second}; !slices.Equal(w, want) {
		t.Fatalf("waits %v; want %v", w, want)
	}
	err := p.Stream(context.Background(), provider.Request{Model: "m"}, func(provider.StreamEvent) error { return nil })
	if provider.ReasonOf(err) != provider.ReasonBadRequest || n.Load() != 4 || len(sleeps.Waits()) != 2 {
		t.Fatalf("400: %v after %d requests and %d waits; want bad_request, 4 and 2", err, n.Load(), len(sleeps.Waits()))
	}
}

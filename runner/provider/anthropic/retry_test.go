package anthropic

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/runner/auth"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/providertest"
)

// TestKeptAliveConnectionDropped: as for the OpenAI provider, a server
// that closes each kept-alive connection on its second request fails no
// call; the retry on a fresh connection does not wait.
func TestKeptAliveConnectionDropped(t *testing.T) {
	frames := []string{msgStart("m"), toolStart(0, "toolu_1", "list_dir"), jsonDelta(0, `{"path":"."}`), stop(0), msgDelta("tool_use"), msgStop()}
	srv := providertest.NewDropServer(t, sse(frames...))
	t.Cleanup(srv.Client().CloseIdleConnections)
	var sleeps providertest.Sleeps
	p := provider.Retrying(New(Config{BaseURL: srv.URL, HTTPClient: srv.Client(), Credentials: auth.NewStatic(auth.APIKey, testKey)}),
		provider.RetryPolicy{Sleep: sleeps.Sleep})
	const calls = 4
	for i := range calls {
		var got []provider.StreamEvent
		err := p.Stream(context.Background(), provider.Request{Model: "m"}, func(ev provider.StreamEvent) error { got = append(got, ev); return nil })
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if want := `call:toolu_1:list_dir:{"path":"."}`; !slices.Contains(render(got), want) {
			t.Fatalf("call %d: %q; want %q", i, render(got), want)
		}
	}
	if d := srv.Dropped.Load(); d != calls-1 {
		t.Fatalf("%d requests dropped; want %d", d, calls-1)
	}
	if w := sleeps.Waits(); len(w) != calls-1 || slices.ContainsFunc(w, func(d time.Duration) bool { return d != 0 }) {
		t.Fatalf("waits %v; want %d waits of 0", w, calls-1)
	}
}

// TestRetryOverloaded: 529 with retry-after-ms, then an answer; the
// retry-after-ms is the wait.
func TestRetryOverloaded(t *testing.T) {
	n := 0
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			w.Header().Set("retry-after-ms", "1500")
			status(529, overloaded)(w, r)
			return
		}
		sse(textMessage("m", "ok")...)(w, r)
	})
	var sleeps providertest.Sleeps
	var lg logs
	p := provider.Retrying(start(t, h, Config{}), provider.RetryPolicy{Sleep: sleeps.Sleep, Logf: lg.logf})
	var got []provider.StreamEvent
	if err := p.Stream(context.Background(), provider.Request{Model: "m"}, func(ev provider.StreamEvent) error { got = append(got, ev); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(render(got), "text:ok") || n != 2 {
		t.Fatalf("%q after %d requests", render(got), n)
	}
	if w := sleeps.Waits(); !slices.Equal(w, []time.Duration{1500 * time.Millisecond}) {
		t.Fatalf("waits %v; want [1.5s]", w)
	}
	if want := "provider: attempt 1 of 3 failed (HTTP 529, provider_error); retrying in 1.5s"; !strings.Contains(lg.String(), want) {
		t.Fatalf("log %q; want a line %q", lg.String(), want)
	}
}

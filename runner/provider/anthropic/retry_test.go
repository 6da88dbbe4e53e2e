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
	providertest.CheckDropped(t, srv, &sleeps, calls)
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

// TestUsage: message_start's usage, then message_delta's cumulative counts
// replace what they give; the prompt read from and written to the cache
// counts as input, the part read as cached. Usage comes once, after the
// calls and before done.
func TestUsage(t *testing.T) {
	start := func(usage string) string {
		return ev("message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":`+usage+`}}`)
	}
	delta := func(usage string) string {
		return ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":`+usage+`}`)
	}
	for _, tc := range []struct {
		name   string
		frames []string
		want   string
	}{
		{"start and delta", []string{start(`{"input_tokens":25,"output_tokens":1}`), delta(`{"output_tokens":15}`)}, "usage:25/15/0/0"},
		{"cache", []string{start(`{"input_tokens":10,"cache_read_input_tokens":2000,"cache_creation_input_tokens":300,"output_tokens":1}`), delta(`{"output_tokens":40}`)}, "usage:2310/40/2000/0"},
		{"delta gives input", []string{start(`{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":1}`), delta(`{"input_tokens":12,"output_tokens":40}`)}, "usage:17/40/5/0"},
		{"delta only", []string{start(`{}`), delta(`{"output_tokens":7}`)}, "usage:0/7/0/0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frames := append(tc.frames[:1:1], toolStart(0, "toolu_1", "list_dir"), stop(0))
			frames = append(frames, tc.frames[1:]...)
			frames = append(frames, msgStop())
			p := provider.Provider(New(Config{BaseURL: providertest.NewDropServer(t, sse(frames...)).URL, Credentials: auth.NewStatic(auth.APIKey, testKey)}))
			var got []provider.StreamEvent
			if err := p.Stream(context.Background(), provider.Request{Model: "m"}, func(e provider.StreamEvent) error { got = append(got, e); return nil }); err != nil {
				t.Fatal(err)
			}
			if want := []string{"call:toolu_1:list_dir:{}", tc.want, "done"}; !slices.Equal(render(got), want) {
				t.Fatalf("%q; want %q", render(got), want)
			}
		})
	}
}

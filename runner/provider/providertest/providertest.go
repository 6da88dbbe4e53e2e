// Package providertest has test doubles for the HTTP providers: a server
// that drops kept-alive connections as llama.cpp's server does, and a
// sleeper that records the waits a retry policy asks for instead of
// waiting.
package providertest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type connKey struct{}

// DropServer answers the first request on each connection with its
// handler, and reads the second request on a connection and then closes
// the connection without an answer: a kept-alive connection the server
// gave up, as llama.cpp's server does after a streamed reply. A client
// that reuses the connection gets no answer and must retry on a new one.
type DropServer struct {
	*httptest.Server
	// Dropped counts the requests read and never answered; Served those
	// the handler answered.
	Dropped, Served atomic.Int32
}

// NewDropServer starts a DropServer with h, closed when t ends.
func NewDropServer(t testing.TB, h http.Handler) *DropServer {
	t.Helper()
	ds := &DropServer{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := r.Context().Value(connKey{}).(*atomic.Int32)
		if n.Add(1) >= 2 {
			_, _ = io.Copy(io.Discard, r.Body)
			ds.Dropped.Add(1)
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Errorf("providertest: hijack: %v", err)
				return
			}
			_ = conn.Close()
			return
		}
		ds.Served.Add(1)
		h.ServeHTTP(w, r)
	}))
	srv.Config.ConnContext = func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, new(atomic.Int32))
	}
	srv.Start()
	t.Cleanup(srv.Close)
	ds.Server = srv
	return ds
}

// Sleeps records the waits asked of it (a provider.RetryPolicy's Sleep)
// and returns at once: ctx's error when it has ended, else nil.
type Sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

// Sleep records d.
func (s *Sleeps) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

// Waits returns the waits asked so far, in order.
func (s *Sleeps) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// CheckDropped checks, after calls calls through a Retrying provider with
// s's Sleep against ds (each call succeeded: the caller checks), that the
// server dropped kept-alive connections for at least half of the calls and
// that at least as many retries went out at once (a wait of 0) on a fresh
// connection. Not every call: under load (-race) the transport sometimes
// opens a fresh connection by itself, and a retry may meet a second
// failure, which waits its backoff.
func CheckDropped(t testing.TB, ds *DropServer, s *Sleeps, calls int) {
	t.Helper()
	w := s.Waits()
	zero := 0
	for _, d := range w {
		if d == 0 {
			zero++
		}
	}
	if d := ds.Dropped.Load(); 2*int(d) < calls || 2*zero < calls {
		t.Fatalf("%d of %d calls found their connection dropped, and waits %v; want at least half dropped and retried at once", d, calls, w)
	}
}

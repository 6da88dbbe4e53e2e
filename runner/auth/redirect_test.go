package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/provider"
)

// TestRefreshRefusesCrossOriginRedirect: a token endpoint that answers 307
// or 308 with another origin (another port; the same port under another
// host name) never gets the refresh token re-POSTed there, whatever client
// the caller supplied. The refresh fails with provider_unavailable, and the
// log names the refused redirect without a token or the target.
func TestRefreshRefusesCrossOriginRedirect(t *testing.T) {
	var stolen atomic.Int32
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
	}))
	t.Cleanup(thief.Close)
	thiefURL, _ := url.Parse(thief.URL)
	for _, tc := range []struct {
		name, target string
		status       int
	}{
		{"307 to another port", thief.URL + "/token", http.StatusTemporaryRedirect},
		{"308 to another host name", "http://localhost:" + thiefURL.Port() + "/token", http.StatusPermanentRedirect},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			exp := t0.Add(-time.Hour)
			writeStore(t, home, exp, 0o600)
			redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, tc.target, tc.status)
			}))
			t.Cleanup(redirector.Close)
			for _, hc := range []*http.Client{nil, redirector.Client()} {
				var l logs
				_, _, err := refresher(home, redirector.URL+"/token", cred(exp), &l, hc).Token(context.Background())
				var pe *provider.Error
				if !errors.As(err, &pe) || pe.Code != protocol.CodeProviderUnavailable {
					t.Errorf("Token() err = %v; want provider_unavailable", err)
				}
				if n := stolen.Load(); n != 0 {
					t.Fatalf("the other origin received %d requests", n)
				}
				noSecrets(t, "log", l.String())
				if got := l.String(); !strings.Contains(got, "redirect to another origin refused") || strings.Contains(got, ":"+thiefURL.Port()) {
					t.Errorf("log = %q; want the refused redirect named, without its target", got)
				}
			}
			redirector.Client().CloseIdleConnections()
		})
	}
	thief.Client().CloseIdleConnections()
}

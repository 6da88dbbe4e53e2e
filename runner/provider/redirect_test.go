package provider_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/magi-code/magi-code/runner/auth"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/anthropic"
	"github.com/magi-code/magi-code/runner/provider/openai"
)

// TestProvidersRefuseCrossOriginRedirect: a provider endpoint that
// redirects to another origin (another port; the same port under another
// host name) never gets the API key or OAuth token forwarded there, with
// the caller's client or the default one. The turn fails instead.
func TestProvidersRefuseCrossOriginRedirect(t *testing.T) {
	const key = "sk-REDIRECTED-KEY-0123456789"
	var stolen atomic.Int32
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
	}))
	t.Cleanup(thief.Close)
	thiefURL, _ := url.Parse(thief.URL)
	targets := map[string]string{
		"another port":      thief.URL,
		"another host name": "http://localhost:" + thiefURL.Port(),
	}
	providers := map[string]func(base string, hc *http.Client) provider.Provider{
		"openai": func(base string, hc *http.Client) provider.Provider {
			return openai.New(openai.Config{BaseURL: base + "/v1", APIKey: key, HTTPClient: hc})
		},
		"anthropic api key": func(base string, hc *http.Client) provider.Provider {
			return anthropic.New(anthropic.Config{BaseURL: base, Credentials: auth.NewStatic(auth.APIKey, key), HTTPClient: hc})
		},
		"anthropic oauth": func(base string, hc *http.Client) provider.Provider {
			return anthropic.New(anthropic.Config{BaseURL: base, Credentials: auth.NewStatic(auth.OAuth, key), HTTPClient: hc})
		},
	}
	for pname, newProvider := range providers {
		for tname, target := range targets {
			for _, status := range []int{http.StatusTemporaryRedirect, http.StatusFound} {
				t.Run(fmt.Sprintf("%s/%s/%d", pname, tname, status), func(t *testing.T) {
					home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						http.Redirect(w, r, target+r.URL.Path, status)
					}))
					defer home.Close()
					defer home.Client().CloseIdleConnections()
					for _, hc := range []*http.Client{home.Client(), nil} {
						p := newProvider(home.URL, hc)
						err := p.Stream(context.Background(), provider.Request{Model: "m"}, func(provider.StreamEvent) error { return nil })
						if err == nil {
							t.Errorf("Stream through a cross-origin redirect succeeded")
						}
						if n := stolen.Load(); n != 0 {
							t.Fatalf("the other origin received %d requests", n)
						}
					}
				})
			}
		}
	}
	thief.Client().CloseIdleConnections()
}

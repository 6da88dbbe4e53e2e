package anthropic

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/magi-code/magi-code/runner/auth"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/provider"
)

// TestTurnTimeRefresh drives an expired OAuth credential through the
// provider: constructing it makes no token request; the first turn
// refreshes, sends the new token as a bearer token and persists it; the
// second turn reuses it.
func TestTurnTimeRefresh(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	home := t.TempDir()
	expired := now.Add(-time.Hour)
	store := `{"anthropic":{"type":"oauth","access_token":"at-old","refresh_token":"rt-old","expires_at":"` + expired.Format(time.RFC3339) + `"}}`
	if err := os.WriteFile(filepath.Join(home, "auth.json"), []byte(store), 0o600); err != nil {
		t.Fatal(err)
	}
	var refreshes atomic.Int32
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refreshes.Add(1)
		r.ParseForm()
		if r.PostForm.Get("refresh_token") != "rt-old" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, `{"access_token":"at-new","refresh_token":"rt-new","expires_in":3600,"token_type":"bearer"}`)
	}))
	defer tokenSrv.Close()
	defer tokenSrv.Client().CloseIdleConnections()

	src := auth.New(auth.Config{
		Home: home, Provider: "anthropic", TokenURL: tokenSrv.URL, HTTPClient: tokenSrv.Client(),
		Credential: config.Credential{Kind: config.CredentialOAuth, AccessToken: "at-old", RefreshToken: "rt-old", ExpiresAt: expired},
		Now:        func() time.Time { return now },
	})
	var c capture
	p := start(t, c.handler(textMessage("claude-sonnet-4-5", "ok")), Config{Credentials: src})
	if n := refreshes.Load(); n != 0 {
		t.Fatalf("%d refreshes before the first turn; want 0", n)
	}
	for turn := range 2 {
		if err := p.Stream(context.Background(), provider.Request{Model: "claude-sonnet-4-5"}, func(provider.StreamEvent) error { return nil }); err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		if got := c.headers[turn].Get("Authorization"); got != "Bearer at-new" {
			t.Errorf("turn %d: Authorization = %q; want the refreshed token", turn, got)
		}
	}
	if n := refreshes.Load(); n != 1 {
		t.Errorf("refreshes = %d; want 1", n)
	}
	data, _ := os.ReadFile(filepath.Join(home, "auth.json"))
	if !strings.Contains(string(data), `"at-new"`) || !strings.Contains(string(data), `"rt-new"`) {
		t.Errorf("auth.json not updated")
	}
}

package auth

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// NewRefresher keeps the HTTP client it is given and makes one with the
// default timeout when it is given none.
func TestRefresherClient(t *testing.T) {
	if got := NewRefresher(Config{}).hc.Timeout; got != DefaultRefreshTimeout {
		t.Errorf("default client timeout = %v; want %v", got, DefaultRefreshTimeout)
	}
	if got := NewRefresher(Config{HTTPClient: &http.Client{Timeout: 7 * time.Second}}).hc.Timeout; got != 7*time.Second {
		t.Errorf("given client timeout = %v; want 7s (the client given)", got)
	}
}

// A fresh token held in memory is used without reading the store or asking
// the endpoint, even when the store is gone.
func TestFreshTokenNeedsNothing(t *testing.T) {
	e, srv := newEndpoint(t)
	var l logs
	r := refresher(t.TempDir(), srv.URL, cred(t0.Add(time.Hour)), &l, srv.Client())
	if kind, tok, err := r.Token(t.Context()); err != nil || kind != OAuth || tok != oldAccess || e.n.Load() != 0 {
		t.Errorf("Token = %v, %q, %v after %d requests; want the held token, no request", kind, tok, err, e.n.Load())
	}
}

// Another child rotated the refresh token and its access token expired
// since: the stored refresh token replaces the spent one held in memory,
// and a successful refresh logs no persistence failure.
func TestStoredRefreshTokenWins(t *testing.T) {
	home := t.TempDir()
	const rotated = "rt-ROTATED-0123456789ab"
	writeStoreEntry(t, home, `{"anthropic":{"type":"oauth","access_token":"at-STALE-0123456789","refresh_token":"`+rotated+
		`","expires_at":"`+t0.Add(-time.Minute).Format(time.RFC3339)+`"}}`)
	e, srv := newEndpoint(t)
	e.valid = map[string]bool{rotated: true} // the one held in memory is spent
	var l logs
	r := refresher(home, srv.URL, cred(t0.Add(-time.Hour)), &l, srv.Client())
	if _, tok, err := r.Token(t.Context()); err != nil || tok != newAccess {
		t.Fatalf("Token = %q, %v; want a refresh with the stored refresh token (log: %s)", tok, err, l.String())
	}
	if got := e.forms[0]["refresh_token"]; got != rotated {
		t.Errorf("refreshed with %q; want the stored %q", got, rotated)
	}
	if strings.Contains(l.String(), "not persisted") {
		t.Errorf("log = %q; a persisted refresh reported as not persisted", l.String())
	}
}

// A token response of exactly MaxTokenResponseBytes is read whole; one byte
// more is refused as too large.
func TestTokenResponseBound(t *testing.T) {
	answer := func(size int) func(w http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			tail := fmt.Sprintf(`","access_token":%q,"expires_in":3600,"token_type":"Bearer"}`, newAccess)
			head := `{"pad":"`
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, head+strings.Repeat("p", size-len(head)-len(tail))+tail)
		}
	}
	for _, tc := range []struct {
		size int
		ok   bool
	}{{MaxTokenResponseBytes, true}, {MaxTokenResponseBytes + 1, false}} {
		e, srv := newEndpoint(t)
		e.answer = answer(tc.size)
		var l logs
		r := refresher(t.TempDir(), srv.URL, cred(t0.Add(-time.Hour)), &l, srv.Client())
		_, tok, err := r.Token(t.Context())
		if tc.ok && (err != nil || tok != newAccess) {
			t.Errorf("a %d-byte answer: %q, %v (log: %s); want the token", tc.size, tok, err, l.String())
		}
		if !tc.ok && (err == nil || !strings.Contains(l.String(), "token response over")) {
			t.Errorf("a %d-byte answer: %q, %v (log: %s); want it refused as too large", tc.size, tok, err, l.String())
		}
	}
}

// An auth.json that is a link (kept in a dotfiles checkout) stays a link
// when a key is stored: the file it points to is rewritten, private.
func TestSetKeyKeepsStoreLink(t *testing.T) {
	home, dotfiles := t.TempDir(), t.TempDir()
	target := filepath.Join(dotfiles, "auth.json")
	writeStoreEntry(t, dotfiles, `{"openai": `+openaiLine+`}`)
	link := filepath.Join(home, "auth.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := SetKey(t.Context(), home, "anthropic", "sk-ant-api03-"+strings.Repeat("k", 40)); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("auth.json after SetKey: %v; want it still a link", err)
	}
	got, _ := os.ReadFile(target)
	fi, _ := os.Stat(target)
	if !strings.Contains(string(got), "anthropic") || !strings.Contains(string(got), "openai") || fi.Mode().Perm() != 0o600 {
		t.Errorf("linked store = %q, mode %v; want both entries, 0600", got, fi.Mode().Perm())
	}
}

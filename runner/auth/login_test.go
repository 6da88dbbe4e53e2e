package auth

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSetKeyAndRemove(t *testing.T) {
	home := filepath.Join(t.TempDir(), "mc")
	ctx := context.Background()
	const key = "sk-login-0123456789abcdef"
	if err := SetKey(ctx, home, "openai", key); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "auth.json")
	// Another entry must survive later writes untouched.
	oauth := `{"type":"oauth","access_token":"a","refresh_token":"r","expires_at":"2030-01-01T00:00:00Z"}`
	if err := os.WriteFile(path, []byte(`{"openai":{"type":"api_key","key":"`+key+`"},"anthropic":`+oauth+"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetKey(ctx, home, "openai", key+"2"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json mode = %v, %v; want 0600", st.Mode(), err)
	}
	if e, _ := readEntry(path, "anthropic"); e.Type != "oauth" || e.RefreshToken != "r" || e.AccessToken != "a" {
		t.Fatalf("SetKey changed the other entry: %+v", e)
	}
	e, err := readEntry(path, "openai")
	if err != nil || e.Type != "api_key" || e.Key != key+"2" {
		t.Fatalf("entry = %+v, %v", e, err)
	}
	types, err := Stored(home)
	if err != nil || types["openai"] != "api_key" || types["anthropic"] != "oauth" {
		t.Fatalf("Stored = %v, %v", types, err)
	}
	if err := Remove(ctx, home, "openai"); err != nil {
		t.Fatal(err)
	}
	if err := Remove(ctx, home, "openai"); !errors.Is(err, ErrNoEntry) {
		t.Fatalf("second Remove = %v; want ErrNoEntry", err)
	}
	if e, _ := readEntry(path, "anthropic"); e.Type != "oauth" || e.RefreshToken != "r" {
		t.Fatalf("the other entry changed: %+v", e)
	}
	if err := SetKey(ctx, home, "openai", ""); err == nil {
		t.Fatal("an empty key was stored")
	}
}

// TestLoginWaitsForTheRefreshersLock: login and logout write auth.json
// under the lock the refresher holds from reading the stored tokens to
// writing the rotated ones. A login that wrote in between (its read before
// the refresher's write, its write after) would lose the rotated tokens,
// or the refresher would lose the new key. While a refresh waits at the
// token endpoint, SetKey and Remove whose context ends return the lock
// error and leave the file as it was; once the refresh is done both
// entries are kept.
func TestLoginWaitsForTheRefreshersLock(t *testing.T) {
	home := t.TempDir()
	exp := t0.Add(-time.Minute)
	writeStore(t, home, exp, 0o600)
	e, srv := newEndpoint(t)
	e.release, e.started = make(chan struct{}), make(chan struct{}, 1)
	var l logs
	r := refresher(home, srv.URL, cred(exp), &l, srv.Client())
	refreshed := make(chan error, 1)
	go func() { _, _, err := r.Token(context.Background()); refreshed <- err }()
	select {
	case <-e.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the refresh never reached the token endpoint")
	}
	path := filepath.Join(home, "auth.json")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, op := range map[string]func(context.Context) error{
		"SetKey": func(ctx context.Context) error { return SetKey(ctx, home, "openai", "sk-login-during-refresh-0123") },
		"Remove": func(ctx context.Context) error { return Remove(ctx, home, "openai") },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := op(ctx)
		cancel()
		if err == nil {
			t.Errorf("%s wrote auth.json while the refresher held the store lock", name)
		}
		if now, _ := os.ReadFile(path); string(now) != string(before) {
			t.Errorf("%s changed auth.json during the refresh:\n%s", name, now)
		}
	}
	close(e.release)
	select {
	case err := <-refreshed:
		if err != nil {
			t.Fatalf("refresh: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the refresh did not end after the endpoint answered")
	}
	const key = "sk-login-after-refresh-0123"
	if err := SetKey(context.Background(), home, "openai", key); err != nil {
		t.Fatal(err)
	}
	if a, _ := readEntry(path, "anthropic"); a.AccessToken != newAccess || a.RefreshToken != newRefresh {
		t.Errorf("the rotated tokens were lost: %+v", a)
	}
	if o, _ := readEntry(path, "openai"); o.Key != key {
		t.Errorf("the new key was lost: %+v", o)
	}
}

package auth

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
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

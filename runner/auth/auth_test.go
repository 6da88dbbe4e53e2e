package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/magi-code/magi-code/internal/logtest"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/provider"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

const (
	oldAccess  = "at-OLD-0123456789abcdef"
	oldRefresh = "rt-OLD-0123456789abcdef"
	newAccess  = "at-NEW-fedcba9876543210"
	newRefresh = "rt-NEW-fedcba9876543210"
	openaiLine = `{"type":"api_key","key":"sk-OPENAIKEYOPENAIKEY01"}`
)

// endpoint is a token endpoint that rotates refresh tokens: each refresh
// token is accepted once, as real servers with rotation do.
type endpoint struct {
	mu      sync.Mutex
	valid   map[string]bool
	n       atomic.Int32
	forms   []map[string]string
	answer  func(w http.ResponseWriter) // overrides the success answer
	release chan struct{}               // when set, the handler waits on it
	started chan struct{}               // when set, receives once per request
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.n.Add(1)
	if e.started != nil {
		e.started <- struct{}{}
	}
	if e.release != nil {
		select {
		case <-e.release:
		case <-r.Context().Done():
			return
		}
	}
	r.ParseForm()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.forms = append(e.forms, map[string]string{
		"grant_type": r.PostForm.Get("grant_type"), "refresh_token": r.PostForm.Get("refresh_token"),
		"client_id": r.PostForm.Get("client_id"), "content_type": r.Header.Get("Content-Type"),
	})
	if e.answer != nil {
		e.answer(w)
		return
	}
	rt := r.PostForm.Get("refresh_token")
	if !e.valid[rt] {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"invalid_grant","error_description":"refresh token `+rt+` spent"}`)
		return
	}
	delete(e.valid, rt)
	e.valid[newRefresh] = true
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"access_token":%q,"refresh_token":%q,"expires_in":3600,"token_type":"Bearer"}`, newAccess, newRefresh)
}

func newEndpoint(t *testing.T) (*endpoint, *httptest.Server) {
	e := &endpoint{valid: map[string]bool{oldRefresh: true}}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	t.Cleanup(srv.Client().CloseIdleConnections)
	return e, srv
}

// writeStore writes auth.json with an openai entry and an anthropic oauth
// entry expiring at exp.
func writeStore(t *testing.T, home string, exp time.Time, mode os.FileMode) {
	t.Helper()
	data := `{"openai": ` + openaiLine + `, "anthropic": {"type":"oauth","access_token":"` + oldAccess +
		`","refresh_token":"` + oldRefresh + `","expires_at":"` + exp.Format(time.RFC3339) + `"}}`
	path := filepath.Join(home, "auth.json")
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, mode)
}

// logs is the refresher's diagnostic log.
type logs = logtest.Lines

func cred(exp time.Time) config.Credential {
	return config.Credential{Kind: config.CredentialOAuth, AccessToken: oldAccess, RefreshToken: oldRefresh, ExpiresAt: exp}
}

func refresher(home, url string, c config.Credential, l *logs, hc *http.Client) *Refresher {
	return NewRefresher(Config{
		Home: home, Provider: "anthropic", Credential: c, TokenURL: url, ClientID: "client-1",
		HTTPClient: hc, Now: func() time.Time { return t0 }, Logf: l.Logf,
	})
}

// noSecrets fails when any token appears in s.
func noSecrets(t *testing.T, what, s string) {
	t.Helper()
	for _, tok := range []string{oldAccess, oldRefresh, newAccess, newRefresh, "sk-OPENAI"} {
		if strings.Contains(s, tok) {
			t.Errorf("%s holds a token: %q", what, s)
		}
	}
}

func TestToken(t *testing.T) {
	tests := []struct {
		name        string
		expires     time.Duration // of the stored access token, from t0
		wantToken   string
		wantRefresh int32
	}{
		{"fresh token is used as is", time.Hour, oldAccess, 0},
		{"expired token is refreshed", -time.Hour, newAccess, 1},
		{"token within the skew is refreshed", 59 * time.Second, newAccess, 1},
		{"token just outside the skew is used", 61 * time.Second, oldAccess, 0},
		{"token expiring now is refreshed", 0, newAccess, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			exp := t0.Add(tc.expires)
			writeStore(t, home, exp, 0o600)
			e, srv := newEndpoint(t)
			var l logs
			src := New(Config{
				Home: home, Provider: "anthropic", Credential: cred(exp), TokenURL: srv.URL, ClientID: "client-1",
				HTTPClient: srv.Client(), Now: func() time.Time { return t0 }, Logf: l.Logf,
			})
			if n := e.n.Load(); n != 0 {
				t.Fatalf("New made %d token requests; want 0 (refresh only at turn time)", n)
			}
			kind, tok, err := src.Token(context.Background())
			if err != nil || kind != OAuth || tok != tc.wantToken {
				t.Fatalf("Token() = %q, %q, %v; want oauth, %q, nil", kind, tok, err, tc.wantToken)
			}
			if n := e.n.Load(); n != tc.wantRefresh {
				t.Errorf("token requests = %d; want %d", n, tc.wantRefresh)
			}
			// A second turn reuses the held token.
			if _, tok2, _ := src.Token(context.Background()); tok2 != tok {
				t.Errorf("second Token() = %q; want %q", tok2, tok)
			}
			if n := e.n.Load(); n != tc.wantRefresh {
				t.Errorf("token requests after second turn = %d; want %d", n, tc.wantRefresh)
			}
			noSecrets(t, "log", l.String())
			noSecrets(t, "source %v", fmt.Sprintf("%v %#v", src, src))
		})
	}
}

func TestRefreshRewritesStore(t *testing.T) {
	home := t.TempDir()
	writeStore(t, home, t0.Add(-time.Minute), 0o600)
	e, srv := newEndpoint(t)
	var l logs
	r := refresher(home, srv.URL, cred(t0.Add(-time.Minute)), &l, srv.Client())
	if _, _, err := r.Token(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"grant_type": "refresh_token", "refresh_token": oldRefresh, "client_id": "client-1", "content_type": "application/x-www-form-urlencoded"}
	if len(e.forms) != 1 || fmt.Sprint(e.forms[0]) != fmt.Sprint(want) {
		t.Errorf("request = %v; want %v", e.forms, want)
	}
	path := filepath.Join(home, "auth.json")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode = %v; want 0600", st.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	var keptBuf, wantBuf bytes.Buffer
	json.Compact(&keptBuf, all["openai"])
	json.Compact(&wantBuf, []byte(openaiLine))
	if keptBuf.String() != wantBuf.String() {
		t.Errorf("openai entry = %s; want it kept", all["openai"])
	}
	var got authEntry
	json.Unmarshal(all["anthropic"], &got)
	wantEntry := authEntry{Type: "oauth", AccessToken: newAccess, RefreshToken: newRefresh, ExpiresAt: t0.Add(time.Hour).Format(time.RFC3339)}
	if got != wantEntry {
		t.Errorf("anthropic entry = %+v; want %+v", got, wantEntry)
	}
	// No temporary file is left behind.
	ents, _ := os.ReadDir(home)
	for _, ent := range ents {
		if strings.Contains(ent.Name(), ".tmp-") {
			t.Errorf("leftover %s", ent.Name())
		}
	}
	// The rewritten store is what config.Load accepts: a fresh refresher
	// (another child) reads it and needs no refresh.
	r2 := refresher(home, srv.URL, cred(t0.Add(-time.Minute)), &l, srv.Client())
	if _, tok, err := r2.Token(context.Background()); err != nil || tok != newAccess {
		t.Errorf("second child Token() = %q, %v; want the stored new token", tok, err)
	}
	if n := e.n.Load(); n != 1 {
		t.Errorf("token requests = %d; want 1", n)
	}
}

func TestConcurrentRefreshIsSerialized(t *testing.T) {
	home := t.TempDir()
	exp := t0.Add(-time.Minute)
	writeStore(t, home, exp, 0o600)
	e, srv := newEndpoint(t)
	var l logs
	// Two refreshers over one MC_HOME stand for two children: they share
	// only the file and its flock (separate open file descriptions).
	children := []*Refresher{
		refresher(home, srv.URL, cred(exp), &l, srv.Client()),
		refresher(home, srv.URL, cred(exp), &l, srv.Client()),
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	toks := make([]string, 8)
	for i := range 8 {
		wg.Go(func() {
			_, toks[i], errs[i] = children[i%2].Token(context.Background())
		})
	}
	wg.Wait()
	for i := range 8 {
		if errs[i] != nil || toks[i] != newAccess {
			t.Errorf("caller %d: %q, %v; want the new token", i, toks[i], errs[i])
		}
	}
	// With rotation, a second exchange of the spent refresh token would
	// have failed: exactly one exchange happened.
	if n := e.n.Load(); n != 1 {
		t.Errorf("token requests = %d; want 1", n)
	}
}

func TestRefreshFailure(t *testing.T) {
	secret := func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"invalid_grant","refresh_token":"`+oldRefresh+`","access_token":"`+newAccess+`"}`)
	}
	tests := []struct {
		name     string
		tokenURL string // "" uses the test server; "none" configures none
		answer   func(w http.ResponseWriter)
		noRT     bool
		mode     os.FileMode
	}{
		{name: "invalid grant", answer: secret},
		{name: "server error", answer: func(w http.ResponseWriter) { w.WriteHeader(500); io.WriteString(w, oldRefresh) }},
		{name: "not json", answer: func(w http.ResponseWriter) { io.WriteString(w, "<html>"+newAccess) }},
		{name: "no access token", answer: func(w http.ResponseWriter) { io.WriteString(w, `{"expires_in":3600}`) }},
		{name: "no expires_in", answer: func(w http.ResponseWriter) { fmt.Fprintf(w, `{"access_token":%q}`, newAccess) }},
		{name: "negative expires_in", answer: func(w http.ResponseWriter) {
			fmt.Fprintf(w, `{"access_token":%q,"expires_in":-5}`, newAccess)
		}},
		{name: "not a bearer token", answer: func(w http.ResponseWriter) {
			fmt.Fprintf(w, `{"access_token":%q,"expires_in":60,"token_type":"mac"}`, newAccess)
		}},
		{name: "oversized answer", answer: func(w http.ResponseWriter) {
			fmt.Fprintf(w, `{"access_token":%q,"expires_in":60,"pad":"%s"}`, newAccess, strings.Repeat("x", MaxTokenResponseBytes))
		}},
		{name: "no token URL", tokenURL: "none"},
		{name: "unreachable endpoint", tokenURL: "http://127.0.0.1:1/token?secret=" + oldRefresh},
		{name: "no refresh token", noRT: true},
		{name: "store readable by others", mode: 0o644},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			exp := t0.Add(-time.Minute)
			mode := tc.mode
			if mode == 0 {
				mode = 0o600
			}
			writeStore(t, home, exp, mode)
			before, _ := os.ReadFile(filepath.Join(home, "auth.json"))
			e, srv := newEndpoint(t)
			e.answer = tc.answer
			url := srv.URL
			switch tc.tokenURL {
			case "none":
				url = ""
			case "":
			default:
				url = tc.tokenURL
			}
			c := cred(exp)
			if tc.noRT {
				c.RefreshToken = ""
				os.WriteFile(filepath.Join(home, "auth.json"), []byte(`{"anthropic":{"type":"oauth","access_token":"`+oldAccess+`","expires_at":"`+exp.Format(time.RFC3339)+`"}}`), 0o600)
				before, _ = os.ReadFile(filepath.Join(home, "auth.json"))
			}
			var l logs
			r := refresher(home, url, c, &l, srv.Client())
			_, tok, err := r.Token(context.Background())
			var pe *provider.Error
			if tok != "" || !errors.As(err, &pe) || pe.Code != protocol.CodeProviderUnavailable {
				t.Fatalf("Token() = %q, %v; want provider_unavailable", tok, err)
			}
			if err.Error() != "provider: provider_unavailable" {
				t.Errorf("error text %q is not just the code", err.Error())
			}
			for e := error(err); e != nil; e = errors.Unwrap(e) {
				noSecrets(t, "error chain", e.Error())
			}
			noSecrets(t, "log", l.String())
			after, _ := os.ReadFile(filepath.Join(home, "auth.json"))
			if string(after) != string(before) {
				t.Errorf("auth.json changed on failure")
			}
		})
	}
}

func TestCancelDuringRefresh(t *testing.T) {
	home := t.TempDir()
	exp := t0.Add(-time.Minute)
	writeStore(t, home, exp, 0o600)
	e, srv := newEndpoint(t)
	e.release = make(chan struct{})
	e.started = make(chan struct{}, 1)
	defer close(e.release)
	var l logs
	r := refresher(home, srv.URL, cred(exp), &l, srv.Client())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, _, err := r.Token(ctx); done <- err }()
	<-e.started // the request is in flight
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Token() = %v; want context.Canceled", err)
	}
}

func TestCancelWhileLocked(t *testing.T) {
	home := t.TempDir()
	exp := t0.Add(-time.Minute)
	writeStore(t, home, exp, 0o600)
	// Another child holds the store lock.
	unlock, err := lockFile(context.Background(), filepath.Join(home, "auth.json.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	e, srv := newEndpoint(t)
	var l logs
	r := refresher(home, srv.URL, cred(exp), &l, srv.Client())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := r.Token(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Token() = %v; want context.Canceled", err)
	}
	// Canceled while waiting for the lock (ctx checked inside the wait).
	ctx2, cancel2 := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, _, err := r.Token(ctx2); done <- err }()
	cancel2()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Token() = %v; want context.Canceled", err)
	}
	if n := e.n.Load(); n != 0 {
		t.Errorf("token requests = %d; want 0", n)
	}
}

func TestStatic(t *testing.T) {
	tests := []struct {
		name     string
		c        config.Credential
		wantKind Kind
		wantTok  string
		wantCode protocol.Code
	}{
		{"api key", config.Credential{Kind: config.CredentialAPIKey, APIKey: "sk-OPENAIKEYOPENAIKEY01"}, APIKey, "sk-OPENAIKEYOPENAIKEY01", ""},
		{"no credential", config.Credential{}, "", "", protocol.CodeProviderUnavailable},
		{"empty key", config.Credential{Kind: config.CredentialAPIKey}, "", "", protocol.CodeProviderUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := New(Config{Credential: tc.c})
			kind, tok, err := src.Token(context.Background())
			var pe *provider.Error
			if kind != tc.wantKind || tok != tc.wantTok || (tc.wantCode == "") != (err == nil) ||
				(err != nil && (!errors.As(err, &pe) || pe.Code != tc.wantCode)) {
				t.Errorf("Token() = %q, %q, %v; want %q, %q, %q", kind, tok, err, tc.wantKind, tc.wantTok, tc.wantCode)
			}
			noSecrets(t, "source %v", fmt.Sprintf("%v %#v", src, src))
		})
	}
}

// TestUnrefreshableTokenWithinSkew: a token that expires within the skew
// but has not expired is still used when no refresh is possible (no
// token_url, or no refresh token): readiness called it ready. An expired
// one fails with provider_unavailable, with no request.
func TestUnrefreshableTokenWithinSkew(t *testing.T) {
	for _, tc := range []struct {
		name      string
		expires   time.Duration
		tokenURL  bool
		noRefresh bool
		wantToken string
	}{
		{"no token_url, not expired", 30 * time.Second, false, false, oldAccess},
		{"no refresh token, not expired", 30 * time.Second, true, true, oldAccess},
		{"no token_url, expired", -time.Second, false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			exp := t0.Add(tc.expires)
			writeStore(t, home, exp, 0o600)
			e, srv := newEndpoint(t)
			url := ""
			if tc.tokenURL {
				url = srv.URL
			}
			c := cred(exp)
			if tc.noRefresh {
				c.RefreshToken = ""
				writeStoreEntry(t, home, `{"anthropic":{"type":"oauth","access_token":"`+oldAccess+`","expires_at":"`+exp.Format(time.RFC3339)+`"}}`)
			}
			var l logs
			_, tok, err := refresher(home, url, c, &l, srv.Client()).Token(context.Background())
			if tok != tc.wantToken {
				t.Fatalf("Token() = %q, %v; want %q", tok, err, tc.wantToken)
			}
			var pe *provider.Error
			if tc.wantToken == "" && (!errors.As(err, &pe) || pe.Code != protocol.CodeProviderUnavailable) {
				t.Fatalf("Token() error %v; want provider_unavailable", err)
			}
			if n := e.n.Load(); n != 0 {
				t.Fatalf("%d token requests; want 0", n)
			}
		})
	}
}

func writeStoreEntry(t *testing.T, home, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, "auth.json"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// sourceFunc is a Source made of a function, for sources that break the
// contract.
type sourceFunc func(ctx context.Context) (Kind, string, error)

func (f sourceFunc) Token(ctx context.Context) (Kind, string, error) { return f(ctx) }

func TestTokenMapsEveryFailureToWhatAProviderReturns(t *testing.T) {
	raw := errors.New("dial tcp: secret-host:443 refused")
	pe := &provider.Error{Code: protocol.CodeProviderUnavailable, Err: errors.New("cause")}
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want func(error) bool
	}{
		{"a provider error as it is", t.Context(), fmt.Errorf("wrapped: %w", pe),
			func(err error) bool { return err == error(pe) }},
		{"ctx's error once ctx ended, whatever the source said", ended, raw,
			func(err error) bool { return err == context.Canceled }},
		{"any other failure as provider_unavailable", t.Context(), raw,
			func(err error) bool {
				got, ok := errors.AsType[*provider.Error](err)
				return ok && got.Code == protocol.CodeProviderUnavailable && errors.Is(err, raw) &&
					!strings.Contains(err.Error(), "secret-host")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind, token, err := Token(tc.ctx, sourceFunc(func(context.Context) (Kind, string, error) {
				return APIKey, "half-read-token", tc.err
			}))
			if kind != "" || token != "" || !tc.want(err) {
				t.Fatalf("Token = %q, %q, %v", kind, token, err)
			}
		})
	}
	kind, token, err := Token(t.Context(), NewStatic(OAuth, "tok"))
	if kind != OAuth || token != "tok" || err != nil {
		t.Fatalf("Token of a working source = %q, %q, %v", kind, token, err)
	}
}

package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/magi-code/magi-code/runner/origin"
)

// Bounds of one refresh exchange.
const (
	// MaxTokenResponseBytes bounds the token endpoint's answer.
	MaxTokenResponseBytes = 64 << 10
	// DefaultRefreshTimeout bounds one refresh request when Config.HTTPClient
	// is nil.
	DefaultRefreshTimeout = 60 * time.Second
)

// Refresher is the Source of an OAuth credential. It is safe for concurrent
// use: refreshes are serialized in this process by a mutex and across
// processes by an flock on auth.json.lock.
type Refresher struct {
	home, provider     string
	tokenURL, clientID string
	hc                 *http.Client
	skew               time.Duration
	now                func() time.Time
	logf               func(format string, args ...any)

	// mu guards the tokens below and serializes refreshes.
	mu           sync.Mutex
	accessToken  string
	refreshToken string
	expiresAt    time.Time
}

// NewRefresher returns the Source of cfg's OAuth credential. It performs no
// I/O: the first refresh, if any, happens in Token.
func NewRefresher(cfg Config) *Refresher {
	r := &Refresher{
		home: cfg.Home, provider: cfg.Provider,
		tokenURL: cfg.TokenURL, clientID: cfg.ClientID,
		hc: cfg.HTTPClient, skew: cfg.Skew, now: cfg.Now, logf: cfg.Logf,
		accessToken:  cfg.Credential.AccessToken,
		refreshToken: cfg.Credential.RefreshToken,
		expiresAt:    cfg.Credential.ExpiresAt,
	}
	if r.hc == nil {
		r.hc = &http.Client{Timeout: DefaultRefreshTimeout}
	}
	// A 307 or 308 would re-POST the refresh token: follow no redirect to
	// another origin, whoever built the client.
	r.hc = origin.Client(r.hc)
	if r.skew <= 0 {
		r.skew = DefaultSkew
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.logf == nil {
		r.logf = func(string, ...any) {}
	}
	return r
}

// String masks the tokens so that an accidental %v cannot leak them.
func (r *Refresher) String() string { return "auth.Refresher{oauth, masked}" }

// GoString masks the tokens for %#v.
func (r *Refresher) GoString() string { return r.String() }

// freshLocked reports whether the held access token is usable for at least
// the skew.
func (r *Refresher) freshLocked() bool {
	return r.accessToken != "" && r.now().Add(r.skew).Before(r.expiresAt)
}

// Token returns the OAuth access token, refreshing it first when it has
// expired or expires within the skew. See Source.
func (r *Refresher) Token(ctx context.Context) (Kind, string, error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.freshLocked() {
		return OAuth, r.accessToken, nil
	}
	if err := r.refreshLocked(ctx); err != nil {
		if ctx.Err() != nil {
			return "", "", fmt.Errorf("auth: refresh interrupted: %w", ctx.Err())
		}
		if (errors.Is(err, errNoTokenURL) || errors.Is(err, errNoRefresh)) &&
			r.accessToken != "" && r.now().Before(r.expiresAt) {
			// Within the skew but not expired, and no way to refresh: the
			// held token still works (readiness called it ready).
			return OAuth, r.accessToken, nil
		}
		return "", "", err
	}
	return OAuth, r.accessToken, nil
}

// refreshLocked obtains fresh tokens: from auth.json when another process
// refreshed them meanwhile, else from the token endpoint, then persists them.
func (r *Refresher) refreshLocked(ctx context.Context) error {
	path := filepath.Join(r.home, "auth.json")
	unlock, err := lockFile(ctx, path+".lock")
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.logf("auth: cannot lock auth.json: %v", err)
		return Unavailable(errors.New("auth: cannot lock the credential store"))
	}
	defer unlock()

	// Another child may have refreshed while we waited for the lock: its
	// tokens are in the file (and our refresh token may be spent).
	stored, err := readEntry(path, r.provider)
	if err != nil {
		r.logf("auth: auth.json unreadable: %v", err)
		return Unavailable(errors.New("auth: credential store unreadable"))
	}
	if stored.Type == string(OAuth) {
		exp, perr := time.Parse(time.RFC3339, stored.ExpiresAt)
		if stored.AccessToken != "" && perr == nil && r.now().Add(r.skew).Before(exp) {
			r.accessToken, r.refreshToken, r.expiresAt = stored.AccessToken, stored.RefreshToken, exp
			return nil
		}
		if stored.RefreshToken != "" {
			r.refreshToken = stored.RefreshToken
		}
	}
	if r.refreshToken == "" {
		r.logf("auth: %s access token expiring and no refresh token is stored", r.provider)
		return Unavailable(errNoRefresh)
	}
	if r.tokenURL == "" {
		r.logf("auth: %s access token expiring and no token_url is configured", r.provider)
		return Unavailable(errNoTokenURL)
	}
	tok, err := r.exchange(ctx)
	if err != nil {
		return err
	}
	r.accessToken, r.expiresAt = tok.access, tok.expiresAt
	if tok.refresh != "" {
		r.refreshToken = tok.refresh // rotated
	}
	entry := authEntry{
		Type:         string(OAuth),
		AccessToken:  r.accessToken,
		RefreshToken: r.refreshToken,
		ExpiresAt:    r.expiresAt.UTC().Format(time.RFC3339),
	}
	if err := writeEntry(path, r.provider, entry); err != nil {
		// The run can go on with the tokens held in memory; a later child
		// refreshes again (or finds the refresh token spent and reports
		// provider_unavailable).
		r.logf("auth: refreshed tokens not persisted: %v", err)
	}
	return nil
}

type tokens struct {
	access, refresh string
	expiresAt       time.Time
}

// tokenResponse is the successful answer of RFC 6749 section 5.1.
type tokenResponse struct {
	AccessToken  string          `json:"access_token"`
	RefreshToken string          `json:"refresh_token"`
	ExpiresIn    json.RawMessage `json:"expires_in"`
	TokenType    string          `json:"token_type"`
}

// exchange POSTs the refresh grant. Errors are safe: they name statuses,
// never bodies, which may echo tokens.
func (r *Refresher) exchange(ctx context.Context) (tokens, error) {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {r.refreshToken}}
	if r.clientID != "" {
		form.Set("client_id", r.clientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		r.logf("auth: bad token URL")
		return tokens{}, Unavailable(errors.New("auth: bad token URL"))
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	sent := r.now()
	resp, err := r.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return tokens{}, ctx.Err()
		}
		r.logf("auth: token request failed: %v", redactURLError(err))
		return tokens{}, Unavailable(errors.New("auth: token request failed"))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxTokenResponseBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return tokens{}, ctx.Err()
		}
		r.logf("auth: token response unreadable")
		return tokens{}, Unavailable(errors.New("auth: token response unreadable"))
	}
	if resp.StatusCode != http.StatusOK {
		r.logf("auth: token endpoint answered HTTP %d", resp.StatusCode)
		return tokens{}, Unavailable(fmt.Errorf("auth: token endpoint answered HTTP %d", resp.StatusCode))
	}
	if len(body) > MaxTokenResponseBytes {
		r.logf("auth: token response over %d bytes", MaxTokenResponseBytes)
		return tokens{}, Unavailable(errors.New("auth: token response too large"))
	}
	var tr tokenResponse
	if json.Unmarshal(body, &tr) != nil || tr.AccessToken == "" {
		r.logf("auth: token response is not a token")
		return tokens{}, Unavailable(errors.New("auth: token response is not a token"))
	}
	if tr.TokenType != "" && !strings.EqualFold(tr.TokenType, "bearer") {
		r.logf("auth: token type is not bearer")
		return tokens{}, Unavailable(errors.New("auth: token type is not bearer"))
	}
	secs, ok := expiresIn(tr.ExpiresIn)
	if !ok {
		r.logf("auth: token response without a valid expires_in")
		return tokens{}, Unavailable(errors.New("auth: token response without expires_in"))
	}
	// Count the lifetime from when the request was sent, so that a slow
	// answer errs toward refreshing early.
	return tokens{access: tr.AccessToken, refresh: tr.RefreshToken, expiresAt: sent.Add(time.Duration(secs) * time.Second)}, nil
}

// expiresIn parses expires_in, a positive number of seconds (some servers
// send it as a string).
func expiresIn(raw json.RawMessage) (int64, bool) {
	s := strings.Trim(string(raw), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > 10*365*24*3600 {
		return 0, false
	}
	return n, true
}

// redactURLError keeps an HTTP client error's operation and cause but not
// its URL (a token URL may carry query parameters).
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}

package auth

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/provider"
)

// Kind says how a token is sent: an API key or an OAuth bearer token.
type Kind string

// Credential kinds, spelled as in auth.json.
const (
	APIKey Kind = "api_key"
	OAuth  Kind = "oauth"
)

// DefaultSkew is how long before expires_at an access token is refreshed.
const DefaultSkew = 60 * time.Second

// Source supplies the credential for one provider request.
//
// Token blocks while a refresh is in progress (in this process or, through
// the auth.json lock, in another one) and returns promptly with an error
// wrapping ctx.Err() when ctx ends. A failure is a *provider.Error with code
// provider_unavailable (see Unavailable); its text never holds a token.
// Implementations are safe for concurrent use.
type Source interface {
	Token(ctx context.Context) (Kind, string, error)
}

// Static is a Source that always returns the same credential (an API key
// from the environment or auth.json).
type Static struct {
	kind  Kind
	token string
}

// NewStatic returns a Source for a credential that never changes.
func NewStatic(kind Kind, token string) *Static { return &Static{kind: kind, token: token} }

// Token returns the credential, or provider_unavailable when it is empty.
func (s *Static) Token(ctx context.Context) (Kind, string, error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	if s.token == "" {
		return "", "", Unavailable(errNoCredential)
	}
	return s.kind, s.token, nil
}

// String masks the token so that an accidental %v cannot leak it.
func (s *Static) String() string { return "auth.Static{" + string(s.kind) + ", masked}" }

// GoString masks the token for %#v.
func (s *Static) GoString() string { return s.String() }

// Config configures New.
type Config struct {
	// Home is MC_HOME: auth.json and auth.json.lock live there.
	Home string
	// Provider names the auth.json entry ("anthropic").
	Provider string
	// Credential is the one config.Load resolved at startup.
	Credential config.Credential
	// TokenURL is the OAuth token endpoint. Required to refresh; without it
	// an expired OAuth credential fails the turn with provider_unavailable.
	TokenURL string
	// ClientID is sent as client_id with the refresh request when non-empty.
	ClientID string
	// HTTPClient posts refresh requests; nil means a client with a 60 s
	// overall timeout. Either way its redirects stay within the token URL's
	// origin (a copy with origin.CheckRedirect is used).
	HTTPClient *http.Client
	// Skew refreshes that long before expiry; 0 means DefaultSkew.
	Skew time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logf receives diagnostics (statuses, never tokens); nil discards.
	Logf func(format string, args ...any)
}

// New returns the Source for cfg.Credential: a Static for an API key, a
// *Refresher for an OAuth credential. A credential of no kind yields a
// Source that fails every turn with provider_unavailable. New performs no
// I/O.
func New(cfg Config) Source {
	switch cfg.Credential.Kind {
	case config.CredentialAPIKey:
		return NewStatic(APIKey, cfg.Credential.APIKey)
	case config.CredentialOAuth:
		return NewRefresher(cfg)
	}
	return NewStatic(APIKey, "")
}

var (
	errNoCredential = errors.New("auth: no credential")
	errNoTokenURL   = errors.New("auth: access token expired and no token URL is configured")
	errNoRefresh    = errors.New("auth: access token expired and no refresh token is stored")
)

// Token returns src's credential for one provider request. Its error is
// the one the provider returns as it is: ctx's error once ctx has ended, a
// *provider.Error that src reports, and any other failure (a Source that
// does not keep to its contract) wrapped as provider_unavailable.
func Token(ctx context.Context, src Source) (Kind, string, error) {
	kind, token, err := src.Token(ctx)
	if err == nil {
		return kind, token, nil
	}
	if ctx.Err() != nil {
		return "", "", ctx.Err()
	}
	if pe, ok := errors.AsType[*provider.Error](err); ok {
		return "", "", pe
	}
	return "", "", Unavailable(err)
}

// Unavailable wraps cause as a provider failure with code
// provider_unavailable: the run cannot use the provider without a valid
// credential. Error() returns only the code.
func Unavailable(cause error) *provider.Error {
	return &provider.Error{Code: protocol.CodeProviderUnavailable, Err: cause}
}

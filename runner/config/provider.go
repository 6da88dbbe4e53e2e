package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/redact"
	"github.com/magi-code/magi-code/runner/fixture"
)

// CredentialKind says what a Credential holds.
type CredentialKind string

const (
	CredentialNone   CredentialKind = ""
	CredentialAPIKey CredentialKind = "api_key"
	CredentialOAuth  CredentialKind = "oauth"
)

// Credential is the resolved provider credential. It is never logged,
// returned on the wire or written to history; String and GoString mask it
// so that an accidental %v cannot leak it.
type Credential struct {
	Kind         CredentialKind
	FromEnv      string // the variable that supplied an API key; "" when from auth.json
	APIKey       string
	AccessToken  string
	RefreshToken string
	ExpiresAt    time.Time
}

// String masks the secret fields.
func (c Credential) String() string {
	if c.Kind == CredentialNone {
		return "Credential{none}"
	}
	return "Credential{" + string(c.Kind) + ", masked}"
}

// GoString masks the secret fields for %#v.
func (c Credential) GoString() string { return c.String() }

// Expired reports whether an OAuth access token is unusable at now.
func (c Credential) Expired(now time.Time) bool {
	return c.Kind == CredentialOAuth && (c.AccessToken == "" || !now.Before(c.ExpiresAt))
}

// Refreshable reports whether an OAuth credential can be refreshed with
// what is configured: it carries a refresh token and the provider has a
// token endpoint (tokenURL). This is a local check; the refresh itself
// happens at turn time, never during startup.
func (c Credential) Refreshable(tokenURL string) bool {
	return c.Kind == CredentialOAuth && c.RefreshToken != "" && tokenURL != ""
}

// authEntry is one provider's record in $MC_HOME/auth.json.
type authEntry struct {
	Type         string `json:"type"`
	Key          string `json:"key"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresAt    string `json:"expires_at"`
}

var errNoCredential = errors.New("no credential")

// readAuth returns provider's credential from auth.json. The file must be
// private to its owner (mode 0600 or stricter) or it is refused whole.
func readAuth(home, provider string) (Credential, error) {
	data, err := ReadPrivate(filepath.Join(home, "auth.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return Credential{}, errNoCredential
	}
	if err != nil {
		return Credential{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var all map[string]authEntry
	if err := dec.Decode(&all); err != nil || dec.More() {
		return Credential{}, errors.New("auth.json: not a valid credential store")
	}
	e, ok := all[provider]
	if !ok {
		return Credential{}, errNoCredential
	}
	switch e.Type {
	case "api_key":
		if e.Key == "" {
			return Credential{}, errNoCredential
		}
		return Credential{Kind: CredentialAPIKey, APIKey: e.Key}, nil
	case "oauth":
		c := Credential{Kind: CredentialOAuth, AccessToken: e.AccessToken, RefreshToken: e.RefreshToken}
		if e.ExpiresAt != "" {
			t, err := time.Parse(time.RFC3339, e.ExpiresAt)
			if err != nil {
				return Credential{}, errors.New("auth.json: expires_at is not RFC 3339")
			}
			c.ExpiresAt = t
		} else if e.AccessToken != "" {
			return Credential{}, errors.New("auth.json: oauth entry without expires_at")
		}
		if c.AccessToken == "" && c.RefreshToken == "" {
			return Credential{}, errNoCredential
		}
		return c, nil
	default:
		return Credential{}, errors.New("auth.json: unknown credential type")
	}
}

// selectModel is the effective model: top-level model, else the provider
// table's model, else the provider's default (only the fixture has one).
func (s *Settings) selectModel() string {
	if s.Model != "" {
		return s.Model
	}
	if s.Provider == FixtureProvider {
		return FixtureModel
	}
	p, _ := s.Remote(s.Provider)
	return p.Model
}

// fillProviderDefaults sets the openai and anthropic tables to their
// effective definitions (default base URLs and key variables) so that the
// effective settings show what will be used.
func (s *Settings) fillProviderDefaults() {
	s.Providers.OpenAI, _ = s.Remote("openai")
	s.Providers.Anthropic, _ = s.Remote("anthropic")
}

// readiness checks the selected provider locally: no network, no OAuth
// exchange. It returns the credential to use (none for the fixture and a
// key-less provider), or the
// failure code: a broken fixture script is configuration_invalid, every
// other problem provider_unavailable.
//
// For the fixture it also parses the script: snap.FixtureScript (nil
// without one) is what the provider replays, read once. For a remote
// provider it sets snap.Remote and resolves snap.ProviderHeaders.
func readiness(s *Settings, snap *Snapshot, home string, env *Env) (Credential, protocol.Code) {
	model := snap.Model
	switch s.Provider {
	case "":
		env.logf("config: no provider configured")
		return Credential{}, protocol.CodeProviderUnavailable
	case "fixture":
		if s.Providers.Fixture.Script != "" {
			data, _, err := readBounded(s.Providers.Fixture.Script)
			if err != nil {
				env.logf("config: fixture script unreadable: %v", err)
				return Credential{}, protocol.CodeConfigurationInvalid
			}
			script, err := fixture.Parse(data)
			if err != nil {
				env.logf("config: fixture script invalid")
				return Credential{}, protocol.CodeConfigurationInvalid
			}
			snap.FixtureScript = script
		}
		return Credential{}, ""
	}
	if model == "" {
		env.logf("config: no model selected for provider %s", s.Provider)
		return Credential{}, protocol.CodeProviderUnavailable
	}
	p, _ := s.Remote(s.Provider) // validateSelection admitted the name
	headers, err := providerHeaders(p, env)
	if err != nil {
		env.logf("config: provider %s: %v", s.Provider, err)
		return Credential{}, protocol.CodeProviderUnavailable
	}
	snap.Remote, snap.ProviderHeaders = p, headers
	if p.KeyLess() {
		// A local server: no key is read, none is sent.
		return Credential{}, ""
	}
	if v := env.getenv(p.APIKeyEnv); v != "" {
		return Credential{Kind: CredentialAPIKey, APIKey: v, FromEnv: p.APIKeyEnv}, ""
	}
	c, err := readAuth(home, s.Provider)
	if err != nil {
		if errors.Is(err, errNoCredential) {
			env.logf("config: no credential for provider %s", s.Provider)
		} else {
			env.logf("config: auth.json refused: %v", err)
		}
		snap.NeedsLogin = true
		return Credential{}, protocol.CodeProviderUnavailable
	}
	// docs/protocol.md, initialize: readiness checks "available authentication locally, including
	// Codex expiry/refreshability": an expired access token is ready only
	// when a refresh is possible with what is configured (a refresh token
	// and the provider's token_url), never by trying one.
	if c.Expired(env.now()) && !c.Refreshable(p.TokenURL) {
		env.logf("config: credential for provider %s expired and not refreshable (refresh token and token_url needed)", s.Provider)
		snap.NeedsLogin = true
		return Credential{}, protocol.CodeProviderUnavailable
	}
	return c, ""
}

// MaxNameBytes bounds provider and model names reported to the client.
// docs/protocol.md, initialize: "Provider/model names are bounded to 256 bytes and omitted (null) if
// secret-like, redacted or control-bearing."
const MaxNameBytes = 256

// SafeName returns s when it may be reported as a provider or model name, or
// ("", false) when it must be reported as null: empty, over 256 bytes,
// invalid UTF-8, holding a control character or white space, or secret-like.
func SafeName(s string) (string, bool) {
	if s == "" || len(s) > MaxNameBytes || !utf8.ValidString(s) {
		return "", false
	}
	for _, r := range s {
		// White space never belongs in a name and is how "Bearer xyz" looks.
		if unicode.IsControl(r) || unicode.IsSpace(r) || r == '\u2028' || r == '\u2029' {
			return "", false
		}
	}
	lower := strings.ToLower(s)
	if redact.Contains(s) || strings.Contains(s, redact.Marker) ||
		strings.HasPrefix(lower, "sk-") || strings.HasPrefix(lower, "bearer") ||
		strings.Contains(lower, "-----begin") {
		return "", false
	}
	return s, true
}

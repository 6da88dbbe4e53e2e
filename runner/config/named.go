package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/magi-code/magi-code/protocol"
)

// The kinds of remote provider: the API a [providers.NAME] table speaks.
const (
	KindOpenAI    = "openai"    // OpenAI's API or any OpenAI-compatible server
	KindAnthropic = "anthropic" // Anthropic's Messages API
)

// The wire APIs of the OpenAI kind ([providers.NAME] wire_api).
const (
	WireChat      = "chat"      // Chat Completions
	WireResponses = "responses" // the Responses API
)

// FixtureProvider is the offline provider; it has its own table shape.
const FixtureProvider = "fixture"

// builtinProviders are the remote providers `provider` may name without a
// table. A [providers.NAME] table of the same name overrides their fields
// one by one. The local servers listen on loopback and need no key.
var builtinProviders = map[string]RemoteProvider{
	"openai":     {Kind: KindOpenAI, BaseURL: "https://api.openai.com/v1", APIKeyEnv: "OPENAI_API_KEY"},
	"anthropic":  {Kind: KindAnthropic, BaseURL: "https://api.anthropic.com", APIKeyEnv: "ANTHROPIC_API_KEY"},
	"ollama":     {Kind: KindOpenAI, BaseURL: "http://127.0.0.1:11434/v1"},
	"lmstudio":   {Kind: KindOpenAI, BaseURL: "http://127.0.0.1:1234/v1"},
	"llamacpp":   {Kind: KindOpenAI, BaseURL: "http://127.0.0.1:8080/v1"},
	"openrouter": {Kind: KindOpenAI, BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY"},
}

// BuiltinProviders returns the names `provider` accepts without a table,
// the fixture first, then the remote built-ins sorted.
func BuiltinProviders() []string {
	return append([]string{FixtureProvider}, slices.Sorted(maps.Keys(builtinProviders))...)
}

// ValidProviderName reports whether name follows the provider name grammar
// [A-Za-z0-9_-]{1,64} (a [providers.NAME] table's name).
func ValidProviderName(name string) bool { return protocol.ValidSessionID(name) }

// tables returns every [providers.NAME] table of a remote provider by
// name: openai and anthropic (always present, maybe empty) and the named
// ones.
func (p *Providers) tables() map[string]RemoteProvider {
	out := make(map[string]RemoteProvider, len(p.Named)+2)
	maps.Copy(out, p.Named)
	out["openai"], out["anthropic"] = p.OpenAI, p.Anthropic
	return out
}

// Remote returns the effective definition of the remote provider name: a
// built-in's fields overlaid field by field by the table of the same name,
// or a named table alone. ok is false for the fixture and for a name that
// is neither built in nor defined.
func (s *Settings) Remote(name string) (RemoteProvider, bool) {
	base, builtin := builtinProviders[name]
	table, defined := s.Providers.tables()[name]
	if name == "openai" || name == "anthropic" {
		defined = false // always present in tables: defined only by being built in
	}
	if !builtin && !defined {
		return RemoteProvider{}, false
	}
	return overlay(base, table), true
}

// overlay returns base with every field that over sets replaced.
func overlay(base, over RemoteProvider) RemoteProvider {
	for _, f := range []struct {
		dst *string
		src string
	}{
		{&base.Kind, over.Kind}, {&base.BaseURL, over.BaseURL}, {&base.APIKeyEnv, over.APIKeyEnv},
		{&base.Model, over.Model}, {&base.TokenURL, over.TokenURL}, {&base.ClientID, over.ClientID},
		{&base.WireAPI, over.WireAPI},
	} {
		if f.src != "" {
			*f.dst = f.src
		}
	}
	if over.MaxTokens != 0 {
		base.MaxTokens = over.MaxTokens
	}
	if over.Headers != nil {
		base.Headers = over.Headers
	}
	if over.EnvHeaders != nil {
		base.EnvHeaders = over.EnvHeaders
	}
	return base
}

// KeyLess reports whether the provider needs no key: it names no
// api_key_env (the local built-ins, or a table without one). Nothing is
// then read from the environment or auth.json, and no Authorization header
// is sent.
func (p RemoteProvider) KeyLess() bool { return p.APIKeyEnv == "" }

// reservedHeaders are set by the HTTP transport or the SDKs; a provider's
// headers may not replace them.
var reservedHeaders = []string{"host", "content-length", "content-type", "transfer-encoding", "connection",
	"accept", "accept-encoding", "user-agent", "anthropic-version"}

// credentialHeaders carry the provider credential: never in static
// headers (a secret does not belong in the file), and in env_headers only
// of a key-less provider (which sends no credential of its own).
var credentialHeaders = []string{"authorization", "x-api-key", "proxy-authorization", "cookie"}

// validateRemote checks one provider table (name's, already overlaid on
// its built-in) and returns an error naming the key, never the value.
func validateRemote(name string, p RemoteProvider, builtin bool) error {
	key := func(k string) string { return "providers." + name + "." + k }
	switch {
	case !ValidProviderName(name):
		return errors.New("providers: invalid provider name")
	case p.Kind != KindOpenAI && p.Kind != KindAnthropic:
		return fmt.Errorf("%s: not openai|anthropic", key("kind"))
	case (name == "openai" || name == "anthropic") && p.Kind != name:
		return fmt.Errorf("%s: the %s provider is of kind %s", key("kind"), name, name)
	case !builtin && p.BaseURL == "":
		return fmt.Errorf("%s: required for a named provider", key("base_url"))
	case p.BaseURL != "" && !httpURL(p.BaseURL):
		return fmt.Errorf("%s: not an http(s) URL", key("base_url"))
	case p.APIKeyEnv != "" && !envGrammar().MatchString(p.APIKeyEnv):
		return fmt.Errorf("%s: not an environment variable name", key("api_key_env"))
	case p.Kind == KindAnthropic && p.APIKeyEnv == "":
		return fmt.Errorf("%s: required for kind anthropic", key("api_key_env"))
	case p.TokenURL != "" && !httpURL(p.TokenURL):
		return fmt.Errorf("%s: not an http(s) URL", key("token_url"))
	case p.MaxTokens < 0:
		return fmt.Errorf("%s: negative", key("max_tokens"))
	case p.WireAPI != "" && p.WireAPI != WireChat && p.WireAPI != WireResponses:
		return fmt.Errorf("%s: not chat|responses", key("wire_api"))
	case p.WireAPI != "" && p.Kind != KindOpenAI:
		return fmt.Errorf("%s: applies to kind openai only", key("wire_api"))
	}
	return checkProviderHeaders(key, p)
}

// checkProviderHeaders checks headers (static values) and env_headers
// (variable names): HTTP field names, not one the transport sets, values
// without control characters, and credential headers only from the
// environment of a key-less provider.
func checkProviderHeaders(key func(string) string, p RemoteProvider) error {
	seen := map[string]bool{}
	for _, set := range []struct {
		name    string
		headers map[string]string
	}{{"headers", p.Headers}, {"env_headers", p.EnvHeaders}} {
		for h, v := range set.headers {
			lower := strings.ToLower(h)
			switch {
			case !headerName().MatchString(h) || slices.Contains(reservedHeaders, lower):
				return fmt.Errorf("%s: invalid or reserved header name", key(set.name))
			case seen[lower]:
				return fmt.Errorf("%s: a header set twice", key(set.name))
			case slices.Contains(credentialHeaders, lower) && (set.name == "headers" || !p.KeyLess()):
				return fmt.Errorf("%s: a credential header comes from env_headers of a provider without api_key_env only", key(set.name))
			case set.name == "headers" && !validHeaderValue(v):
				return fmt.Errorf("%s: a value holds a control character", key(set.name))
			case set.name == "env_headers" && !envGrammar().MatchString(v):
				return fmt.Errorf("%s: value is not an environment variable name", key(set.name))
			}
			seen[lower] = true
		}
	}
	return nil
}

// validHeaderValue reports whether v may be sent as an HTTP field value:
// no control character but horizontal tab (so no CR, LF or NUL).
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// providerHeaders resolves the headers of p for a request: the static
// values, then each env_headers variable read now (once, at startup). An
// unset or empty variable is an error naming the variable, never a value.
func providerHeaders(p RemoteProvider, env *Env) (map[string]string, error) {
	if len(p.Headers) == 0 && len(p.EnvHeaders) == 0 {
		return nil, nil
	}
	out := maps.Clone(p.Headers)
	if out == nil {
		out = map[string]string{}
	}
	for h, v := range p.EnvHeaders {
		val := env.getenv(v)
		if val == "" {
			return nil, fmt.Errorf("env_headers: variable %s is unset or empty", v)
		}
		if !validHeaderValue(val) {
			return nil, fmt.Errorf("env_headers: variable %s holds a control character", v)
		}
		out[h] = val
	}
	return out, nil
}

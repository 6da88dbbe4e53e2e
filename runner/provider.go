package runner

import (
	"errors"
	"net/http"
	"strings"

	"github.com/magi-code/magi-code/runner/auth"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/anthropic"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/provider/openai"
)

var errProvider = errors.New("runner: provider unavailable")

// newProvider builds the admitted provider from the snapshot. config.Load
// has already checked readiness, resolved the provider's definition and
// headers, and parsed the fixture script; this only constructs it (no
// request, no second read).
func newProvider(snap *config.Snapshot, logf func(string, ...any)) (provider.Provider, error) {
	if snap.Provider == config.FixtureProvider {
		return fixtureprov.New(snap.FixtureScript), nil
	}
	r := snap.Remote
	var creds auth.Source
	if snap.Credential.Kind != config.CredentialNone {
		// The credential is read locally at startup; an expired OAuth
		// token is refreshed here, at turn time, through auth.json (the
		// entry of the provider's name).
		creds = auth.New(auth.Config{
			Home: snap.Home, Provider: snap.Provider, Credential: snap.Credential,
			TokenURL: r.TokenURL, ClientID: r.ClientID, Logf: logf,
		})
	}
	hc := withHeaders(snap.ProviderHeaders)
	switch r.Kind {
	case config.KindAnthropic:
		return retrying(anthropic.New(anthropic.Config{
			BaseURL:     strings.TrimRight(r.BaseURL, "/"),
			Credentials: creds,
			Model:       snap.Model,
			MaxTokens:   int64(r.MaxTokens),
			HTTPClient:  hc,
			Logf:        logf,
		}), logf), nil
	case config.KindOpenAI:
		// Without a credential (a key-less local server) no Authorization
		// header is sent.
		return retrying(openai.New(openai.Config{
			BaseURL:     strings.TrimRight(r.BaseURL, "/"),
			Credentials: creds,
			MaxTokens:   int64(r.MaxTokens),
			HTTPClient:  hc,
			WireAPI:     r.WireAPI,
			Logf:        logf,
		}), logf), nil
	}
	return nil, errProvider
}

// retrying adds the HTTP providers' retries (provider.Retrying: the SDKs'
// defaults, on the wall clock, each retry in the diagnostic log).
func retrying(p provider.Provider, logf func(string, ...any)) provider.Provider {
	return provider.Retrying(p, provider.RetryPolicy{Logf: logf})
}

// withHeaders returns an HTTP client that sends headers with every
// request, or nil (the provider's default client) when there are none. It
// is the provider's default client (provider.HTTPClient: header timeout,
// no redirect to another origin, so the headers never leave the
// provider's origin) with the headers added by its transport.
func withHeaders(headers map[string]string) *http.Client {
	if len(headers) == 0 {
		return nil
	}
	hc := provider.HTTPClient(nil)
	h := make(http.Header, len(headers))
	for k, v := range headers {
		h.Set(k, v)
	}
	hc.Transport = headerTransport{base: hc.Transport, headers: h}
	return hc
}

// headerTransport sets fixed headers on each request, on a copy (a
// RoundTripper must not change the caller's request).
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header[k] = v
	}
	return t.base.RoundTrip(req)
}

// systemContext is what the model sees first, in the documented order:
// instructions (global AGENTS.md, the AGENTS.md files from the repository
// root down to the cwd, listed paths), the primary agent profile, then,
// when the skill tool is offered (withSkills), each enabled skill's name
// and description: never a skill's body, which the model loads with the
// skill tool when it uses the skill.
func systemContext(snap *config.Snapshot, withSkills bool) []string {
	var out []string
	for _, d := range snap.Instructions {
		out = append(out, d.Text)
	}
	if snap.Agent != nil && snap.Agent.Prompt != "" {
		out = append(out, snap.Agent.Prompt)
	}
	if withSkills && len(snap.Skills) > 0 {
		var b strings.Builder
		b.WriteString("Skills are instructions for particular tasks. Before doing a task that one of these skills describes, " +
			"call the " + SkillToolName + " tool with its name to load its instructions, then follow them.\n")
		for _, s := range snap.Skills {
			b.WriteString("\n- ")
			b.WriteString(s.Name)
			if s.Description != "" {
				b.WriteString(": ")
				b.WriteString(s.Description)
			}
		}
		b.WriteString("\n")
		out = append(out, b.String())
	}
	return out
}

package runner

import (
	"errors"
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
// has already checked readiness and parsed the fixture script; this only
// constructs it (no request, no second read).
func newProvider(snap *config.Snapshot, logf func(string, ...any)) (provider.Provider, error) {
	switch snap.Provider {
	case "fixture":
		return fixtureprov.New(snap.FixtureScript), nil
	case "anthropic":
		a := snap.Settings.Providers.Anthropic
		return anthropic.New(anthropic.Config{
			BaseURL: strings.TrimRight(a.BaseURL, "/"),
			// The credential is read locally at startup; an expired OAuth
			// token is refreshed here, at turn time, through auth.json.
			Credentials: auth.New(auth.Config{
				Home: snap.Home, Provider: "anthropic", Credential: snap.Credential,
				TokenURL: a.TokenURL, ClientID: a.ClientID, Logf: logf,
			}),
			Model:     snap.Model,
			MaxTokens: int64(a.MaxTokens),
			Logf:      logf,
		}), nil
	case "openai":
		o := snap.Settings.Providers.OpenAI
		return openai.New(openai.Config{
			BaseURL: strings.TrimRight(o.BaseURL, "/"),
			// An API key, or an OAuth access token refreshed at turn time
			// through auth.json, as for Anthropic.
			Credentials: auth.New(auth.Config{
				Home: snap.Home, Provider: "openai", Credential: snap.Credential,
				TokenURL: o.TokenURL, ClientID: o.ClientID, Logf: logf,
			}),
			MaxTokens: int64(o.MaxTokens),
			Logf:      logf,
		}), nil
	}
	return nil, errProvider
}

// systemContext is what the model sees first, in the documented order:
// instructions (global AGENTS.md, project AGENTS.md, listed paths), the
// primary agent profile, then the enabled skills.
func systemContext(snap *config.Snapshot) []string {
	var out []string
	for _, d := range snap.Instructions {
		out = append(out, d.Text)
	}
	if snap.Agent != nil && snap.Agent.Prompt != "" {
		out = append(out, snap.Agent.Prompt)
	}
	if len(snap.Skills) > 0 {
		var b strings.Builder
		b.WriteString("Available skills:\n")
		for _, s := range snap.Skills {
			b.WriteString("\n## ")
			b.WriteString(s.Name)
			if s.Description != "" {
				b.WriteString(": ")
				b.WriteString(s.Description)
			}
			b.WriteString("\n")
			b.WriteString(s.Text)
			b.WriteString("\n")
		}
		out = append(out, b.String())
	}
	return out
}

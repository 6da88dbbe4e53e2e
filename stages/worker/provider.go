package worker

import (
	"errors"
	"io"
	"os"
	"strings"

	"github.com/magi-code/magi-code/runner/auth"
	"github.com/magi-code/magi-code/runner/config"
	"github.com/magi-code/magi-code/runner/fixture"
	"github.com/magi-code/magi-code/runner/provider"
	"github.com/magi-code/magi-code/runner/provider/anthropic"
	"github.com/magi-code/magi-code/runner/provider/fixtureprov"
	"github.com/magi-code/magi-code/runner/provider/openai"
)

// maxScriptBytes bounds the fixture script read at startup.
const maxScriptBytes = 64 << 20

var errProvider = errors.New("worker: provider unavailable")

// newProvider builds the admitted provider from the snapshot. config.Load
// has already checked readiness; this only constructs it (no request).
func newProvider(snap *config.Snapshot, logf func(string, ...any)) (provider.Provider, error) {
	switch snap.Provider {
	case "fixture":
		var script *fixture.Script
		if path := snap.Settings.Providers.Fixture.Script; path != "" {
			f, err := os.Open(path)
			if err != nil {
				return nil, errProvider
			}
			data, err := io.ReadAll(io.LimitReader(f, maxScriptBytes))
			f.Close()
			if err != nil {
				return nil, errProvider
			}
			if script, err = fixture.Parse(data); err != nil {
				return nil, errProvider
			}
		}
		return fixtureprov.New(script), nil
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
			Thinking:  snap.Thinking,
			Logf:      logf,
		}), nil
	case "openai":
		return openai.New(openai.Config{
			BaseURL: strings.TrimRight(snap.Settings.Providers.OpenAI.BaseURL, "/"),
			APIKey:  snap.Credential.APIKey,
			Logf:    logf,
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

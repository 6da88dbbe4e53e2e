package config

import (
	"testing"

	tomlparser "github.com/knadh/koanf/parsers/toml/v2"
)

// FuzzFrontMatter: any document parses or fails, never panics.
func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{"---\nname: a\ntools: [a, \"b\"]\n---\nbody", "---\nx:\n  - a\n---\n", "---\nd: >\n  a\n---", "---\nq: \"\\", "---\nt: ['a''b', \"c\\\"\"]\n---\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		fm, _, has, err := splitFrontMatter([]byte(doc))
		if err == nil && has {
			_, _ = parseFrontMatter(fm)
		}
	})
}

// FuzzSettings: any settings text is accepted or rejected, never panics.
func FuzzSettings(f *testing.F) {
	for _, s := range []string{fixtureGlobal, "approval_policy = \"ask\"\napi_key_env = \"K\"\nprovider = \"openai\"\n", "[mcp_servers.a]\ncommand = \"x\"\nenv = {A = \"1\"}\n", "[[hooks]]\nevent = \"stop\"\ncommand = \"x\"\n", "schema_version = 2\ntools = 3\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		raw, err := tomlparser.Parser().Unmarshal([]byte(text))
		if err != nil || raw == nil {
			return
		}
		l := &layer{raw: raw}
		if _, err := migrate(raw); err != nil {
			return
		}
		if err := l.resolvePaths("/base", "/home"); err != nil {
			return
		}
		s, err := merge(l.raw, nil)
		if err != nil {
			return
		}
		_ = s.validate()
		s.fillProviderDefaults()
		_ = s.selectModel()
	})
}

package config

import (
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// TestNeedsLogin: a load that fails for want of a usable credential says
// so (what `magi-code login` fixes); other provider_unavailable failures
// (no provider, no model, a header variable unset) and ready loads do not.
func TestNeedsLogin(t *testing.T) {
	openai := "provider = \"openai\"\nmodel = \"gpt-x\"\n"
	anthropic := "provider = \"anthropic\"\nmodel = \"claude-x\"\n"
	tests := []struct {
		name  string
		files []file
		vars  map[string]string
		want  bool
	}{
		{"missing key", []file{f("home/settings.toml", openai)}, nil, true},
		{"custom key variable unset", []file{f("home/settings.toml", openai+"[providers.openai]\napi_key_env = \"MY_KEY\"\n")}, map[string]string{"OPENAI_API_KEY": "k"}, true},
		{"auth.json refused", []file{f("home/settings.toml", openai), fm("home/auth.json", `{"openai":{"type":"api_key","key":"k"}}`, 0o644)}, nil, true},
		{"expired and not refreshable", []file{f("home/settings.toml", anthropic), fm("home/auth.json", `{"anthropic":{"type":"oauth","access_token":"at","expires_at":"2001-01-01T00:00:00Z"}}`, 0o600)}, nil, true},
		{"no provider", []file{f("home/settings.toml", "model = \"m\"\n")}, nil, false},
		{"no model", []file{f("home/settings.toml", "provider = \"openai\"\n")}, map[string]string{"OPENAI_API_KEY": "k"}, false},
		{"key present", []file{f("home/settings.toml", openai)}, map[string]string{"OPENAI_API_KEY": "k"}, false},
		{"fixture", []file{f("home/settings.toml", fixtureGlobal)}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for _, fl := range tc.files {
				w.write(t, fl.path, fl.text, fl.mode)
			}
			for k, v := range tc.vars {
				w.vars[k] = v
			}
			snap, code := w.load(t)
			if snap.NeedsLogin != tc.want {
				t.Fatalf("NeedsLogin = %v (code %q); want %v", snap.NeedsLogin, code, tc.want)
			}
			if tc.want && code != protocol.CodeProviderUnavailable {
				t.Fatalf("code %q", code)
			}
		})
	}
}

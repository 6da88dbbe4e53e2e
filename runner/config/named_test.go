package config

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// TestNamedProviders loads each way of naming a provider and checks the
// effective definition, the credential read (or not) and the code.
func TestNamedProviders(t *testing.T) {
	tests := []struct {
		name     string
		global   string
		project  string
		vars     map[string]string
		auth     string
		want     protocol.Code
		kind     string
		baseURL  string
		keyless  bool
		key      string
		headers  map[string]string
		model    string
		provider string
	}{
		{name: "ollama preset needs no key", global: "provider = \"ollama\"\nmodel = \"llama3.2\"\n",
			kind: KindOpenAI, baseURL: "http://127.0.0.1:11434/v1", keyless: true, model: "llama3.2"},
		{name: "lmstudio preset", global: "provider = \"lmstudio\"\nmodel = \"m\"\n",
			kind: KindOpenAI, baseURL: "http://127.0.0.1:1234/v1", keyless: true, model: "m"},
		{name: "llamacpp preset", global: "provider = \"llamacpp\"\nmodel = \"m\"\n",
			kind: KindOpenAI, baseURL: "http://127.0.0.1:8080/v1", keyless: true, model: "m"},
		{name: "key-less preset ignores OPENAI_API_KEY and auth.json", global: "provider = \"ollama\"\nmodel = \"m\"\n",
			vars: map[string]string{"OPENAI_API_KEY": "sk-other"}, auth: `{"ollama":{"type":"api_key","key":"stored"}}`,
			kind: KindOpenAI, baseURL: "http://127.0.0.1:11434/v1", keyless: true, model: "m"},
		{name: "openrouter reads OPENROUTER_API_KEY", global: "provider = \"openrouter\"\nmodel = \"a/b\"\n",
			vars: map[string]string{"OPENROUTER_API_KEY": "or-key", "OPENAI_API_KEY": "sk-other"},
			kind: KindOpenAI, baseURL: "https://openrouter.ai/api/v1", key: "or-key", model: "a/b"},
		{name: "openrouter without its key", global: "provider = \"openrouter\"\nmodel = \"a/b\"\n",
			vars: map[string]string{"OPENAI_API_KEY": "sk-other"}, want: protocol.CodeProviderUnavailable},
		{name: "openrouter key from auth.json under its name", global: "provider = \"openrouter\"\nmodel = \"a/b\"\n",
			auth: `{"openai":{"type":"api_key","key":"wrong"},"openrouter":{"type":"api_key","key":"stored"}}`,
			kind: KindOpenAI, baseURL: "https://openrouter.ai/api/v1", key: "stored", model: "a/b"},
		{name: "preset overridden by its table", global: "provider = \"ollama\"\n[providers.ollama]\nbase_url = \"http://10.0.0.2:11434/v1\"\nmodel = \"qwen\"\n",
			kind: KindOpenAI, baseURL: "http://10.0.0.2:11434/v1", keyless: true, model: "qwen"},
		{name: "preset given a key variable needs it", global: "provider = \"lmstudio\"\nmodel = \"m\"\n[providers.lmstudio]\napi_key_env = \"LMS_KEY\"\n",
			want: protocol.CodeProviderUnavailable},
		{name: "preset given a key variable uses it", global: "provider = \"lmstudio\"\nmodel = \"m\"\n[providers.lmstudio]\napi_key_env = \"LMS_KEY\"\n",
			vars: map[string]string{"LMS_KEY": "lk"}, kind: KindOpenAI, baseURL: "http://127.0.0.1:1234/v1", key: "lk", model: "m"},
		{name: "named OpenAI-compatible table", global: "provider = \"vllm\"\nmodel = \"m\"\n[providers.vllm]\nkind = \"openai\"\nbase_url = \"https://gpu.example/v1\"\nwire_api = \"chat\"\n",
			kind: KindOpenAI, baseURL: "https://gpu.example/v1", keyless: true, model: "m"},
		{name: "named table's model", global: "provider = \"vllm\"\n[providers.vllm]\nkind = \"openai\"\nbase_url = \"https://gpu.example/v1\"\nmodel = \"tm\"\n",
			kind: KindOpenAI, baseURL: "https://gpu.example/v1", keyless: true, model: "tm"},
		{name: "named anthropic table", global: "provider = \"proxy\"\nmodel = \"c\"\n[providers.proxy]\nkind = \"anthropic\"\nbase_url = \"https://proxy.example\"\napi_key_env = \"PROXY_KEY\"\n",
			vars: map[string]string{"PROXY_KEY": "pk", "ANTHROPIC_API_KEY": "no"}, kind: KindAnthropic, baseURL: "https://proxy.example", key: "pk", model: "c"},
		{name: "named anthropic table needs api_key_env", global: "provider = \"proxy\"\nmodel = \"c\"\n[providers.proxy]\nkind = \"anthropic\"\nbase_url = \"https://proxy.example\"\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "two providers, the selected one used", global: "provider = \"lmstudio\"\nmodel = \"m\"\n[providers.ollama]\nmodel = \"o\"\n[providers.vllm]\nkind = \"openai\"\nbase_url = \"https://gpu.example/v1\"\napi_key_env = \"VLLM_KEY\"\n",
			kind: KindOpenAI, baseURL: "http://127.0.0.1:1234/v1", keyless: true, model: "m"},
		{name: "headers static and from the environment", global: "provider = \"openrouter\"\nmodel = \"m\"\n[providers.openrouter]\nheaders = { \"HTTP-Referer\" = \"https://example.org\" }\nenv_headers = { \"X-Title\" = \"OR_TITLE\" }\n",
			vars: map[string]string{"OPENROUTER_API_KEY": "k", "OR_TITLE": "magi"}, kind: KindOpenAI, baseURL: "https://openrouter.ai/api/v1", key: "k", model: "m",
			headers: map[string]string{"HTTP-Referer": "https://example.org", "X-Title": "magi"}},
		{name: "env header variable unset", global: "provider = \"ollama\"\nmodel = \"m\"\n[providers.ollama]\nenv_headers = { \"X-Title\" = \"UNSET_VAR\" }\n",
			want: protocol.CodeProviderUnavailable},
		{name: "authorization from env of a key-less provider", global: "provider = \"vllm\"\nmodel = \"m\"\n[providers.vllm]\nkind = \"openai\"\nbase_url = \"https://gpu.example/v1\"\nenv_headers = { Authorization = \"GPU_AUTH\" }\n",
			vars: map[string]string{"GPU_AUTH": "Bearer g"}, kind: KindOpenAI, baseURL: "https://gpu.example/v1", keyless: true, model: "m",
			headers: map[string]string{"Authorization": "Bearer g"}},
		{name: "authorization in static headers", global: "provider = \"ollama\"\nmodel = \"m\"\n[providers.ollama]\nheaders = { authorization = \"Bearer x\" }\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "authorization from env beside a key", global: "provider = \"openrouter\"\nmodel = \"m\"\n[providers.openrouter]\nenv_headers = { Authorization = \"X\" }\n",
			vars: map[string]string{"OPENROUTER_API_KEY": "k", "X": "y"}, want: protocol.CodeConfigurationInvalid},
		{name: "reserved header", global: "provider = \"ollama\"\nmodel = \"m\"\n[providers.ollama]\nheaders = { Host = \"evil\" }\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "header set twice in two spellings", global: "provider = \"ollama\"\nmodel = \"m\"\n[providers.ollama]\nheaders = { X-A = \"1\" }\nenv_headers = { x-a = \"V\" }\n",
			vars: map[string]string{"V": "2"}, want: protocol.CodeConfigurationInvalid},
		{name: "header value with a line break", global: "provider = \"ollama\"\nmodel = \"m\"\n[providers.ollama]\nheaders = { X-A = \"1\\r\\nX-B: 2\" }\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "header name not a token", global: "provider = \"ollama\"\nmodel = \"m\"\n[providers.ollama]\nheaders = { \"X A\" = \"1\" }\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "env header value from a variable with a line break", global: "provider = \"ollama\"\nmodel = \"m\"\n[providers.ollama]\nenv_headers = { X-A = \"V\" }\n",
			vars: map[string]string{"V": "a\nb"}, want: protocol.CodeProviderUnavailable},
		{name: "named table without kind", global: "provider = \"vllm\"\nmodel = \"m\"\n[providers.vllm]\nbase_url = \"https://gpu.example/v1\"\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "named table without base_url", global: "provider = \"vllm\"\nmodel = \"m\"\n[providers.vllm]\nkind = \"openai\"\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "named table with an unknown key", global: "provider = \"vllm\"\nmodel = \"m\"\n[providers.vllm]\nkind = \"openai\"\nbase_url = \"https://gpu.example/v1\"\nbase_uri = \"x\"\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "unused bad table still invalid", global: "provider = \"fixture\"\n[providers.vllm]\nkind = \"cohere\"\nbase_url = \"https://gpu.example/v1\"\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "bad wire_api", global: "provider = \"ollama\"\nmodel = \"m\"\n[providers.ollama]\nwire_api = \"grpc\"\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "wire_api on anthropic", global: "provider = \"anthropic\"\nmodel = \"m\"\n[providers.anthropic]\nwire_api = \"chat\"\n",
			vars: map[string]string{"ANTHROPIC_API_KEY": "k"}, want: protocol.CodeConfigurationInvalid},
		{name: "openai stays openai", global: "provider = \"openai\"\nmodel = \"m\"\n[providers.openai]\nkind = \"anthropic\"\n",
			vars: map[string]string{"OPENAI_API_KEY": "k"}, want: protocol.CodeConfigurationInvalid},
		{name: "a preset may change kind", global: "provider = \"ollama\"\nmodel = \"m\"\n[providers.ollama]\nkind = \"anthropic\"\napi_key_env = \"OK\"\n",
			vars: map[string]string{"OK": "k"}, kind: KindAnthropic, baseURL: "http://127.0.0.1:11434/v1", key: "k", model: "m"},
		{name: "unknown name", global: "provider = \"ollamma\"\nmodel = \"m\"\n", want: protocol.CodeConfigurationInvalid},
		{name: "table name outside the grammar", global: "provider = \"fixture\"\n[providers.\"a b\"]\nkind = \"openai\"\nbase_url = \"https://x.example/v1\"\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "project may not define headers", global: "provider = \"ollama\"\nmodel = \"m\"\n", project: "[providers.ollama]\nheaders = { X-A = \"1\" }\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "project may not define env_headers", global: "provider = \"ollama\"\nmodel = \"m\"\n", project: "[providers.ollama]\nenv_headers = { X-A = \"V\" }\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "project may not change kind", global: "provider = \"ollama\"\nmodel = \"m\"\n", project: "[providers.ollama]\nkind = \"anthropic\"\n",
			want: protocol.CodeConfigurationInvalid},
		{name: "project may choose the model and wire_api", global: "provider = \"ollama\"\n", project: "[providers.ollama]\nmodel = \"pm\"\nwire_api = \"chat\"\n",
			kind: KindOpenAI, baseURL: "http://127.0.0.1:11434/v1", keyless: true, model: "pm"},
		{name: "project may select a preset", global: "model = \"m\"\n", project: "provider = \"llamacpp\"\n",
			kind: KindOpenAI, baseURL: "http://127.0.0.1:8080/v1", keyless: true, model: "m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.write(t, "home/settings.toml", tc.global, 0o600)
			if tc.project != "" {
				w.write(t, "cwd/.magi-code/settings.toml", tc.project, 0o644)
			}
			if tc.auth != "" {
				w.write(t, "home/auth.json", tc.auth, 0o600)
			}
			maps.Copy(w.vars, tc.vars)
			snap, code := w.load(t)
			if code != tc.want {
				t.Fatalf("code %q, want %q (log %q)", code, tc.want, w.logs)
			}
			if tc.want != "" {
				return
			}
			r := snap.Remote
			if r.Kind != tc.kind || r.BaseURL != tc.baseURL || r.KeyLess() != tc.keyless || snap.Model != tc.model {
				t.Fatalf("remote %+v keyless %v model %q", r, r.KeyLess(), snap.Model)
			}
			if tc.keyless != (snap.Credential.Kind == CredentialNone) || snap.Credential.APIKey != tc.key {
				t.Fatalf("credential %v, want key %q", snap.Credential, tc.key)
			}
			if !maps.Equal(snap.ProviderHeaders, tc.headers) {
				t.Fatalf("headers %q, want %q", snap.ProviderHeaders, tc.headers)
			}
		})
	}
}

// TestBuiltinOpenAIAnthropicUnchanged: the settings of before named
// providers keep their meaning: openai and anthropic with their default
// endpoints and key variables, and base_url overrides.
func TestBuiltinOpenAIAnthropicUnchanged(t *testing.T) {
	for _, tc := range []struct {
		global, varName, baseURL string
		kind                     string
	}{
		{"provider = \"openai\"\nmodel = \"m\"\n", "OPENAI_API_KEY", "https://api.openai.com/v1", KindOpenAI},
		{"provider = \"anthropic\"\nmodel = \"m\"\n", "ANTHROPIC_API_KEY", "https://api.anthropic.com", KindAnthropic},
		{"provider = \"openai\"\nmodel = \"m\"\n[providers.openai]\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key_env = \"MY\"\n", "MY", "http://127.0.0.1:9/v1", KindOpenAI},
	} {
		w := newWorld(t)
		w.write(t, "home/settings.toml", tc.global, 0o600)
		w.vars[tc.varName] = "k"
		snap, code := w.load(t)
		if code != "" || snap.Remote.Kind != tc.kind || snap.Remote.BaseURL != tc.baseURL || snap.Credential.APIKey != "k" {
			t.Fatalf("%q: code %q remote %+v", tc.global, code, snap.Remote)
		}
		d, err := Describe(w.env())
		if err != nil || d.Readiness != "" {
			t.Fatalf("describe: %v %q", err, d.Readiness)
		}
	}
}

// TestDescribeNamedProvider: config show names the effective endpoint
// and key variable of a preset, and masks header values.
func TestDescribeNamedProvider(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", "provider = \"openrouter\"\nmodel = \"m\"\n[providers.openrouter]\nheaders = { X-Secretish = \"tok-1234\" }\n", 0o600)
	w.vars["OPENROUTER_API_KEY"] = "k"
	d, err := Describe(w.env())
	if err != nil || d.Readiness != "" {
		t.Fatalf("describe: %v %q", err, d.Readiness)
	}
	text := d.Text()
	for _, want := range []string{
		`providers.openrouter.base_url = "https://openrouter.ai/api/v1"  # default`,
		`providers.openrouter.api_key_env = "OPENROUTER_API_KEY"  # default`,
		`providers.openrouter.kind = "openai"  # default`,
		`providers.openrouter.headers.X-Secretish = ` + Masked + `  # global`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("config show lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "tok-1234") {
		t.Errorf("config show prints a header value:\n%s", text)
	}
}

// TestLookupProvider: what login and model accept.
func TestLookupProvider(t *testing.T) {
	w := newWorld(t)
	w.write(t, "home/settings.toml", "provider = \"fixture\"\n[providers.vllm]\nkind = \"openai\"\nbase_url = \"https://gpu.example/v1\"\napi_key_env = \"VLLM\"\n", 0o600)
	for name, want := range map[string]bool{"fixture": true, "openai": true, "anthropic": true, "ollama": true,
		"lmstudio": true, "llamacpp": true, "openrouter": true, "vllm": true, "acme": false, "": false, "a b": false, "../x": false} {
		if _, ok := LookupProvider(w.env(), name); ok != want {
			t.Errorf("LookupProvider(%q) = %v, want %v", name, ok, want)
		}
	}
	if p, _ := LookupProvider(w.env(), "ollama"); !p.KeyLess() {
		t.Error("ollama is not key-less")
	}
	if p, _ := LookupProvider(w.env(), "vllm"); p.KeyLess() || p.APIKeyEnv != "VLLM" {
		t.Errorf("vllm: %+v", p)
	}
	// Settings that do not load still know the built-ins.
	w.write(t, "home/settings.toml", "provider = \n", 0o600)
	if _, ok := LookupProvider(w.env(), "ollama"); !ok {
		t.Error("ollama unknown when the settings do not load")
	}
	if _, ok := LookupProvider(w.env(), "vllm"); ok {
		t.Error("vllm known from settings that do not load")
	}
}

// TestSetSelectionNamedProvider: `model ollama llama3.2` writes the
// selection; an unknown name is refused and nothing is written.
func TestSetSelectionNamedProvider(t *testing.T) {
	w := newWorld(t)
	if err := SetSelection(w.env(), "ollama", "llama3.2"); err != nil {
		t.Fatal(err)
	}
	snap, code := w.load(t)
	if code != "" || snap.Provider != "ollama" || snap.Model != "llama3.2" {
		t.Fatalf("code %q provider %q model %q", code, snap.Provider, snap.Model)
	}
	before, _ := os.ReadFile(filepath.Join(w.home, "settings.toml"))
	if err := SetSelection(w.env(), "vllm", "m"); err == nil {
		t.Fatal("an undefined provider was selected")
	}
	after, _ := os.ReadFile(filepath.Join(w.home, "settings.toml"))
	if string(before) != string(after) {
		t.Fatal("a refused selection changed the file")
	}
}

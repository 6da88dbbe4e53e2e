package runner

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// tokenEndpoint is an OAuth token endpoint that answers every refresh grant
// with access and refresh tokens, recording each form it received.
type tokenEndpoint struct {
	srv *httptest.Server
	// mu guards forms.
	mu    sync.Mutex
	forms []url.Values
}

func newTokenEndpoint(t *testing.T, access, refresh string) *tokenEndpoint {
	t.Helper()
	e := &tokenEndpoint{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		form, _ := url.ParseQuery(string(body))
		e.mu.Lock()
		e.forms = append(e.forms, form)
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"access_token":`+clienttest.Quote(access)+`,"refresh_token":`+clienttest.Quote(refresh)+
			`,"expires_in":3600,"token_type":"Bearer"}`)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *tokenEndpoint) received() []url.Values {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]url.Values(nil), e.forms...)
}

// writeAuth writes auth.json (mode 0600) into the workspace's MC_HOME.
func writeAuth(t *testing.T, ws *clienttest.Workspace, content string) string {
	t.Helper()
	p := filepath.Join(ws.Home, "auth.json")
	ws.WriteFile(t, p, content)
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// openaiOAuthSettings selects the OpenAI-compatible provider at llm with
// credentials from auth.json only (api_key_env names an unset variable).
func openaiOAuthSettings(llm, tokenURL, extra string) string {
	s := "provider = \"openai\"\nmodel = \"" + testModel + "\"\n" + extra + "\n[providers.openai]\nbase_url = " +
		clienttest.Quote(llm+"/v1") + "\napi_key_env = \"E2E_UNSET_OPENAI_KEY\"\n"
	if tokenURL != "" {
		s += "token_url = " + clienttest.Quote(tokenURL) + "\nclient_id = \"magi-e2e-client\"\n"
	}
	return s
}

// TestOpenAIOAuth: an OAuth entry for openai in auth.json is used end to
// end: a valid access token is the request's bearer token (it used to be
// reported ready and never sent); an expired one is refreshed at turn time
// through token_url (with the refresh token and client_id), the new access
// token is sent, and the rotated tokens are written back to auth.json,
// still 0600. Initialization makes no token request.
func TestOpenAIOAuth(t *testing.T) {
	t.Parallel()
	t.Run("valid access token is sent", func(t *testing.T) {
		t.Parallel()
		llm := newLLMServer(t, sseAnswer(false, oaTextResponse("hello")...))
		ws := clienttest.NewWorkspace(t, openaiOAuthSettings(llm.srv.URL, "", ""))
		writeAuth(t, ws, `{"openai":{"type":"oauth","access_token":"oa-valid-access","refresh_token":"rt-1","expires_at":"2999-01-01T00:00:00Z"}}`)
		ch := startChild(t, ws, client.Options{})
		r := ch.Turn(ch.Create().SessionID, "hi")
		r.WantOutcome(t, "completed", "")
		reqs := llm.recorded()
		if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer oa-valid-access" {
			t.Fatalf("requests %d, Authorization %q; want the OAuth access token", len(reqs), reqs[0].Header.Get("Authorization"))
		}
		ch.Shutdown()
	})
	t.Run("expired access token is refreshed through token_url", func(t *testing.T) {
		t.Parallel()
		tokens := newTokenEndpoint(t, "oa-fresh-access", "rt-rotated")
		llm := newLLMServer(t, sseAnswer(false, oaTextResponse("hello")...))
		ws := clienttest.NewWorkspace(t, openaiOAuthSettings(llm.srv.URL, tokens.srv.URL, ""))
		authPath := writeAuth(t, ws, `{"openai":{"type":"oauth","access_token":"oa-stale-access","refresh_token":"rt-old","expires_at":"2001-01-01T00:00:00Z"}}`)
		ch := startChild(t, ws, client.Options{})
		if n := len(tokens.received()); n != 0 {
			t.Fatalf("initialization made %d token requests; want 0", n)
		}
		r := ch.Turn(ch.Create().SessionID, "hi")
		r.WantOutcome(t, "completed", "")
		forms := tokens.received()
		if len(forms) != 1 || forms[0].Get("grant_type") != "refresh_token" || forms[0].Get("refresh_token") != "rt-old" ||
			forms[0].Get("client_id") != "magi-e2e-client" {
			t.Fatalf("token requests %v; want one refresh grant with rt-old and the client_id", forms)
		}
		reqs := llm.recorded()
		if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer oa-fresh-access" {
			t.Fatalf("requests %d; Authorization %q; want the refreshed token", len(reqs), reqs[0].Header.Get("Authorization"))
		}
		ch.Shutdown()
		fi, err := os.Stat(authPath)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("auth.json after refresh: %v, mode %v", err, fi.Mode())
		}
		var stored map[string]map[string]string
		b, _ := os.ReadFile(authPath)
		if err := json.Unmarshal(b, &stored); err != nil {
			t.Fatal(err)
		}
		if e := stored["openai"]; e["access_token"] != "oa-fresh-access" || e["refresh_token"] != "rt-rotated" || e["type"] != "oauth" {
			t.Fatalf("auth.json openai entry after refresh: type %q, tokens rotated: %v", e["type"],
				e["access_token"] == "oa-fresh-access" && e["refresh_token"] == "rt-rotated")
		}
	})
}

// TestOpenAIRequestKeys: [providers.openai] max_tokens and the top-level
// thinking reach the OpenAI-compatible request (they used to be accepted
// and ignored): thinking as reasoning_effort, max_tokens then as
// max_completion_tokens; without thinking, max_tokens as max_tokens.
func TestOpenAIRequestKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, extra string
		want        map[string]any
	}{
		{"thinking high", "thinking = \"high\"\n", map[string]any{"reasoning_effort": "high", "max_completion_tokens": float64(321)}},
		{"thinking unset", "", map[string]any{"max_tokens": float64(321)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			llm := newLLMServer(t, sseAnswer(false, oaTextResponse("hello")...))
			settings := strings.Replace(openaiFormat.settings(llm.srv.URL), "[providers.openai]", tc.extra+"[providers.openai]\nmax_tokens = 321", 1)
			ws := clienttest.NewWorkspace(t, settings)
			ch := startChild(t, ws, client.Options{Env: append(ws.Env(), "OPENAI_API_KEY=sk-test-keys")})
			ch.Turn(ch.Create().SessionID, "hi").WantOutcome(t, "completed", "")
			reqs := llm.recorded()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			var body map[string]any
			if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			got := map[string]any{}
			for _, k := range []string{"max_tokens", "max_completion_tokens", "reasoning_effort"} {
				if v, ok := body[k]; ok {
					got[k] = v
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("request options %v; want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Fatalf("request options %v; want %v", got, tc.want)
				}
			}
			ch.Shutdown()
		})
	}
}

// TestOAuthReadiness: readiness checks refreshability locally. An expired
// OAuth access token with a refresh token is ready only when the provider
// has a token_url (it used to be ready and fail every turn); with one it is
// ready, and initialization makes no token request.
func TestOAuthReadiness(t *testing.T) {
	t.Parallel()
	expired := func(p string) string {
		return `{"` + p + `":{"type":"oauth","access_token":"stale","refresh_token":"rt","expires_at":"2001-01-01T00:00:00Z"}}`
	}
	anthropic := func(tokenURL string) string {
		s := "provider = \"anthropic\"\nmodel = \"claude-x\"\n[providers.anthropic]\nbase_url = \"http://127.0.0.1:9\"\napi_key_env = \"E2E_UNSET_KEY\"\n"
		if tokenURL != "" {
			s += "token_url = " + clienttest.Quote(tokenURL) + "\n"
		}
		return s
	}
	tokens := newTokenEndpoint(t, "never", "never")
	// After the parallel subtests: initialization never refreshed.
	t.Cleanup(func() {
		if n := len(tokens.received()); n != 0 {
			t.Errorf("initialization made %d token requests; want 0", n)
		}
	})
	for _, tc := range []struct {
		name, settings, auth, code string
	}{
		{"anthropic expired, refresh token, no token_url", anthropic(""), expired("anthropic"), "provider_unavailable"},
		{"openai expired, refresh token, no token_url", openaiOAuthSettings("http://127.0.0.1:9", "", ""), expired("openai"), "provider_unavailable"},
		{"anthropic expired, refresh token and token_url", anthropic(tokens.srv.URL), expired("anthropic"), ""},
		{"openai expired, refresh token and token_url", openaiOAuthSettings("http://127.0.0.1:9", tokens.srv.URL, ""), expired("openai"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := clienttest.NewWorkspace(t, tc.settings)
			writeAuth(t, ws, tc.auth)
			ch := &child{ws.Spawn(t, client.Options{})}
			params := map[string]any{"required_capabilities": []string{}}
			if tc.code == "" {
				ch.Result("initialize", params, nil)
			} else {
				ch.WantError("initialize", params, protocol.Code(tc.code))
			}
			ch.Shutdown()
		})
	}
}

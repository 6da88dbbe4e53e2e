//go:build unix

package acp

import (
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// TestAuthRequired: a session whose settings name a provider without a
// usable credential is -32000 (ACP's "authentication required", which
// makes a client offer the auth methods) with data.code
// provider_unavailable; a turn whose provider refuses the credential
// answers the same; a provider that is simply not configured stays
// -32603. The connection goes on after each.
func TestAuthRequired(t *testing.T) {
	ws := clienttest.NewWorkspace(t, "provider = \"openai\"\nmodel = \"gpt-test\"\n\n[providers.openai]\napi_key_env = \"MAGI_E2E_UNSET_KEY\"\n")
	a := start(t, ws)
	a.initialize()
	r, _ := a.call("session/new", map[string]any{"cwd": ws.Cwd, "mcpServers": []any{}})
	if r.Error == nil || r.Error.Code != -32000 || r.Error.Data.Code != "provider_unavailable" {
		t.Errorf("no key: %s", r.raw)
	}
	a.wantExit(0)

	none := clienttest.NewWorkspace(t, "model = \"m\"\n")
	b := start(t, none)
	b.initialize()
	if r, _ := b.call("session/new", map[string]any{"cwd": none.Cwd, "mcpServers": []any{}}); r.Error == nil || r.Error.Code != -32603 || r.Error.Data.Code != "provider_unavailable" {
		t.Errorf("no provider: %s", r.raw)
	}
	b.wantExit(0)

	refused := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		response(clienttest.Step{"error": "provider_unavailable"}), response(text("fine")),
	}})
	c := start(t, refused)
	c.initialize()
	sid := c.newSession()
	if r, _ := c.until(c.prompt(sid, "one"), nil); r.Error == nil || r.Error.Code != -32000 || r.Error.Data.Code != "provider_unavailable" {
		t.Errorf("refused credential: %s", r.raw)
	}
	if r, _ := c.until(c.prompt(sid, "two"), nil); stopReason(t, r) != "end_turn" {
		t.Errorf("after: %s", r.raw)
	}
	c.wantExit(0)
}

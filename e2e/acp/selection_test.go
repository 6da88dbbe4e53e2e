//go:build unix

package acp

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// options reads the configOptions (and legacy modes) of a session answer.
func options(t *testing.T, f frame) (map[string]string, string) {
	t.Helper()
	var res struct {
		ConfigOptions []struct {
			ID           string `json:"id"`
			CurrentValue string `json:"currentValue"`
		} `json:"configOptions"`
		Modes struct {
			CurrentModeID string `json:"currentModeId"`
		} `json:"modes"`
	}
	if f.Error != nil || json.Unmarshal(f.Result, &res) != nil {
		t.Fatalf("answer %s", f.raw)
	}
	m := map[string]string{}
	for _, o := range res.ConfigOptions {
		m[o.ID] = o.CurrentValue
	}
	return m, res.Modes.CurrentModeID
}

// TestSelectionSaved: the mode and thinking level chosen over ACP are saved
// with the session, before its first prompt and after it: session/load and
// session/resume in a new process restore them, and serve (Mission
// Control's backend) restores the thinking level (a saved_selection_notice:
// it differs from the startup one).
func TestSelectionSaved(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	set := func(id, value string) {
		if r, _ := a.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": id, "value": value}); r.Error != nil {
			t.Fatalf("set %s: %s", id, r.raw)
		}
	}
	set("thought_level", "high")
	set("mode", "read-only")
	a.until(a.prompt(sid, "one"), nil)
	if r, _ := a.call("session/set_mode", map[string]any{"sessionId": sid, "modeId": "auto"}); r.Error != nil {
		t.Fatalf("set_mode: %s", r.raw)
	}
	a.wantExit(0)

	for _, method := range []string{"session/load", "session/resume"} {
		b := start(t, ws)
		b.initialize()
		r, _ := b.call(method, map[string]any{"sessionId": sid, "cwd": ws.Cwd, "mcpServers": []any{}})
		opts, mode := options(t, r)
		if opts["mode"] != "auto" || mode != "auto" || opts["thought_level"] != "high" {
			t.Errorf("%s: options %v, legacy mode %q; want auto, high", method, opts, mode)
		}
		b.wantExit(0)
	}

	ch := ws.StartChild(t, client.Options{})
	res := ch.Open(sid)
	if !slices.Contains(res.Notices, protocol.NoticeSavedSelectionNotice) {
		t.Errorf("serve's open: notices %v; want %s (the saved thinking level)", res.Notices, protocol.NoticeSavedSelectionNotice)
	}
	ch.Shutdown()
}

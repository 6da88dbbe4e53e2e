//go:build unix

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestApprovalsStored: what the person allowed over ACP is stored as serve
// stores it, so that the session resumed under serve (Mission Control's
// view, history.page with activity.output) shows each allowed request,
// redacted, with its scope, right before its call's activity entry; a
// rejected one shows none (its call failed).
func TestApprovalsStored(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{
		response(shell("echo out-" + secret)), response(text("ran")),
		response(shell("echo refused > f")), response(text("refused")),
		response(shell("echo always")), response(text("always")),
	}})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	for _, option := range []string{"allow_once", "reject_once", "allow_always"} {
		asked := 0
		resp, _ := a.until(a.prompt(sid, option), func(f frame) {
			if f.Method == "session/request_permission" {
				asked++
				a.respond(f.ID, selected(option))
			}
		})
		if stopReason(t, resp) != "end_turn" || asked != 1 {
			t.Fatalf("%s: %s, asked %d times", option, resp.raw, asked)
		}
	}
	a.wantExit(0)
	// The records themselves are redacted, as serve stores them.
	data, err := os.ReadFile(filepath.Join(ws.Home, "sessions", sid+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var stored []string
	for _, line := range strings.Split(string(data), "\n") {
		var r struct{ Type, Summary, Scope string }
		if json.Unmarshal([]byte(line), &r) == nil && r.Type == "approval" {
			stored = append(stored, r.Summary+" | "+r.Scope)
		}
	}
	if want := "shell: echo out-[REDACTED] | \nshell: echo always | session"; strings.Join(stored, "\n") != want {
		t.Fatalf("approval records %q; want %q", stored, want)
	}

	ch := ws.Spawn(t, client.Options{})
	ch.Result("initialize", map[string]any{"required_capabilities": append(slices.Clone(clienttest.AllCapabilities), protocol.CapabilityActivityOutput)}, nil)
	entries, _, _ := ch.History(sid, ch.Open(sid).Revision)
	ch.Shutdown()
	var got []string
	for i, e := range entries {
		if e.Kind != "approval" {
			continue
		}
		next := ""
		if i+1 < len(entries) && entries[i+1].Kind == "activity" {
			next = entries[i+1].Text
		}
		got = append(got, e.Text+" | "+e.Scope+" | "+next)
	}
	want := []string{
		"shell: echo out-[REDACTED] | once | shell completed: exit 0",
		"shell: echo always | session | shell completed: exit 0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		b, _ := json.MarshalIndent(entries, "", " ")
		t.Fatalf("approval entries:\n%s\nwant:\n%s\nall entries: %s", strings.Join(got, "\n"), strings.Join(want, "\n"), b)
	}
}

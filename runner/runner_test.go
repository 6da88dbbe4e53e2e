package runner

import (
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner/config"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestRestoreSelection(t *testing.T) {
	rt := &Runtime{snap: &config.Snapshot{Provider: "fixture", Model: "fixture-model", Thinking: "low", ContextID: "c"}}
	saved := func(provider, model, thinking string) history.OpenInfo {
		return history.OpenInfo{HasSaved: true, Saved: history.Selection{Provider: provider, Model: model, Thinking: thinking}}
	}
	cases := []struct {
		name    string
		info    history.OpenInfo
		model   string // status
		choice  Choice // turns
		notices []string
	}{
		{"no header", history.OpenInfo{}, "fixture-model", Choice{Thinking: "low"}, nil},
		{"same", saved("fixture", "fixture-model", "low"), "fixture-model", Choice{Thinking: "low"}, nil},
		{"other model", saved("fixture", "m2", "low"), "m2", Choice{Model: "m2", Thinking: "low"}, []string{protocol.NoticeSavedSelectionNotice}},
		{"other thinking", saved("fixture", "fixture-model", "high"), "fixture-model", Choice{Thinking: "high"}, []string{protocol.NoticeSavedSelectionNotice}},
		{"provider default thinking", saved("fixture", "fixture-model", ""), "fixture-model", Choice{Thinking: ""}, []string{protocol.NoticeSavedSelectionNotice}},
		{"other model and thinking, one notice", saved("fixture", "m2", "off"), "m2", Choice{Model: "m2", Thinking: "off"}, []string{protocol.NoticeSavedSelectionNotice}},
		{"other provider keeps saved thinking", saved("openai", "gpt", "high"), "fixture-model", Choice{Thinking: "high"}, []string{protocol.NoticeSavedSelectionUnavailable}},
		{"unknown thinking level", saved("fixture", "fixture-model", "xhigh"), "fixture-model", Choice{Thinking: "low"}, []string{protocol.NoticeSavedSelectionUnavailable}},
		{"unknown thinking, other model", saved("fixture", "m2", "xhigh"), "m2", Choice{Model: "m2", Thinking: "low"}, []string{protocol.NoticeSavedSelectionUnavailable, protocol.NoticeSavedSelectionNotice}},
		{"other provider, unknown thinking", saved("openai", "gpt", "xhigh"), "fixture-model", Choice{Thinking: "low"}, []string{protocol.NoticeSavedSelectionUnavailable}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sel, notices, choice := rt.Restore(c.info)
			if sel.Model != c.model || choice != c.choice || strings.Join(notices, ",") != strings.Join(c.notices, ",") {
				t.Fatalf("Restore = %+v, %v, %+v; want model %q, %v, %+v", sel, notices, choice, c.model, c.notices, c.choice)
			}
		})
	}
}

// TestPrimaryProfileTools: the primary agent profile's tools list is the
// tool set offered, exactly; the task tool (subagents) only when listed;
// an empty list offers every tool.
func TestPrimaryProfileTools(t *testing.T) {
	sub := []config.Profile{{Name: "helper", Description: "helps", Mode: "subagent"}}
	cases := []struct {
		name      string
		tools     []string
		want      []string // nil: every built-in tool
		subagents bool
	}{
		{"listed tools only", []string{"read_file", "grep", "no_such_tool"}, []string{"read_file", "grep"}, false},
		{"task listed", []string{"list_dir", "task"}, []string{"list_dir"}, true},
		{"empty list offers all", nil, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			snap := &config.Snapshot{Provider: "fixture", Model: "fixture-model", Cwd: t.TempDir(), Home: t.TempDir(),
				Agent: &config.Profile{Name: "lead", Mode: "primary", Tools: c.tools}, Subagents: sub}
			rt, code := New(t.Context(), &Admitted{snap: snap}, Options{})
			if code != "" {
				t.Fatal(code)
			}
			defer rt.Close(t.Context())
			var got []string
			for _, tool := range rt.tools.All() {
				got = append(got, tool.Name())
			}
			if c.want == nil {
				if len(got) < 6 {
					t.Fatalf("tools %v; want every built-in tool", got)
				}
			} else if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Fatalf("tools %v; want %v", got, c.want)
			}
			if (len(rt.subagents) > 0) != c.subagents {
				t.Fatalf("subagents %v; want offered: %v", rt.subagents, c.subagents)
			}
		})
	}
}

// TestClientDefsBounded: an ACP client's MCP servers are bounded as a
// settings server is by default (startup, each tool call): one that never
// answers its handshake does not hold session/new; one named like a
// settings server is left out.
func TestClientDefsBounded(t *testing.T) {
	defs, left := clientDefs([]MCPServer{{Name: "a", Command: "/bin/a"}, {Name: "b", URL: "http://127.0.0.1:1/"}, {Name: "s", Command: "/bin/s"}},
		[]config.MCPServer{{Name: "s"}}, "/w")
	if len(defs) != 2 || len(left) != 1 || left[0] != "s" {
		t.Fatalf("defs %+v, left %q", defs, left)
	}
	for _, d := range defs {
		if d.StartupTimeout != config.DefaultMCPStartupTimeout || d.ToolTimeout != config.DefaultMCPToolTimeout || d.Cwd != "/w" {
			t.Errorf("%s: startup %v, tool %v, cwd %q", d.Name, d.StartupTimeout, d.ToolTimeout, d.Cwd)
		}
	}
}

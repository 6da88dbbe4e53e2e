//go:build unix

package acp

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
)

// TestCompactionUpdate: with a small context window, some turn compacts;
// a client that advertised session.compaction sees compaction_update
// in_progress then completed with one compactionId, one that did not sees
// none; a load afterwards replays the turns from before the compaction.
func TestCompactionUpdate(t *testing.T) {
	for _, advertise := range []bool{true, false} {
		var script [][]clienttest.Step
		for k := range 10 {
			script = append(script, response(text(fmt.Sprintf("reply %d ", k)+strings.Repeat("w", 2000))))
		}
		ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Top: "context_window = 2000", Responses: script})
		a := start(t, ws)
		caps := map[string]any{}
		if advertise {
			caps["session"] = map[string]any{"compaction": map[string]any{}}
		}
		if r, _ := a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps}); r.Error != nil {
			t.Fatal(r.raw)
		}
		sid := a.newSession()
		var statuses, ids []string
		for turn := 0; turn < 8 && len(statuses) < 2; turn++ {
			resp, seen := a.until(a.prompt(sid, fmt.Sprintf("prompt %d", turn)), nil)
			if stopReason(t, resp) != "end_turn" {
				t.Fatalf("turn %d: %s", turn, resp.raw)
			}
			for _, f := range seen {
				var u struct {
					Update struct {
						Kind   string `json:"sessionUpdate"`
						ID     string `json:"compactionId"`
						Status string `json:"status"`
					} `json:"update"`
				}
				if f.Method == "session/update" && jsonInto(f.Params, &u) && u.Update.Kind == "compaction_update" {
					statuses, ids = append(statuses, u.Update.Status), append(ids, u.Update.ID)
				}
			}
			if !advertise && turn == 5 {
				break
			}
		}
		switch {
		case advertise && (strings.Join(statuses, ",") != "in_progress,completed" || ids[0] != ids[1] || ids[0] == ""):
			t.Errorf("advertised: %v %v", statuses, ids)
		case !advertise && len(statuses) != 0:
			t.Errorf("not advertised: %v", statuses)
		}
		if advertise {
			a.call("session/close", map[string]any{"sessionId": sid})
			_, replay := a.call("session/load", map[string]any{"sessionId": sid, "cwd": ws.Cwd, "mcpServers": []any{}})
			if !strings.Contains(strings.Join(transcript(t, replay), "\n"), "prompt 0") {
				t.Error("the load did not replay the turns before the compaction")
			}
		}
		a.wantExit(0)
	}
}

// TestCompactCommand: available_commands_update lists the built-in
// compact; a prompt /compact (with instructions) compacts now instead of
// going to the model: the fixture's next response is consumed as the
// summary (no agent message), compaction_update goes in_progress then
// completed, the answer is end_turn, and the next prompt gets the response
// after it. On an empty session /compact calls no provider. The command is
// not stored as a user message (load's replay), and /compactor is not the
// command.
func TestCompactCommand(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		response(text("first answer")),
		response(text("SUMMARY of the talk")),
		response(text("after the summary")),
		response(text("compactor reply")),
	}})
	a := start(t, ws)
	if r, _ := a.call("initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"session": map[string]any{"compaction": map[string]any{}}}}); r.Error != nil {
		t.Fatal(r.raw)
	}
	r, before := a.call("session/new", map[string]any{"cwd": ws.Cwd, "mcpServers": []any{}})
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if r.Error != nil || !jsonInto(r.Result, &created) || created.SessionID == "" {
		t.Fatalf("session/new: %s", r.raw)
	}
	sid := created.SessionID
	kinds := func(seen []frame) (out []string) {
		for _, f := range seen {
			var u struct {
				Update struct {
					Kind     string `json:"sessionUpdate"`
					Status   string `json:"status"`
					Commands []struct {
						Name string `json:"name"`
					} `json:"availableCommands"`
				} `json:"update"`
			}
			if f.Method != "session/update" || !jsonInto(f.Params, &u) {
				continue
			}
			k := u.Update.Kind
			switch k {
			case "compaction_update":
				k += " " + u.Update.Status
			case "available_commands_update":
				for _, c := range u.Update.Commands {
					k += " " + c.Name
				}
			}
			out = append(out, k)
		}
		return out
	}
	prompt := func(text string) (string, []string) {
		resp, seen := a.until(a.prompt(sid, text), nil)
		return stopReason(t, resp), kinds(seen)
	}
	// The commands update follows new's answer, never before it.
	if got := kinds(before); len(got) != 0 {
		t.Fatalf("updates before session/new's answer: %q", got)
	}
	// Empty session: nothing to compact.
	if stop, got := prompt("/compact"); stop != "end_turn" || strings.Join(got, ",") != "available_commands_update compact" {
		t.Fatalf("empty /compact: %q %q", stop, got)
	}
	if stop, got := prompt("hello"); stop != "end_turn" || !slices.Contains(got, "agent_message_chunk") {
		t.Fatalf("hello: %q %q", stop, got)
	}
	stop, got := prompt("  /compact keep the file names")
	if stop != "end_turn" || strings.Join(got, ",") != "compaction_update in_progress,compaction_update completed" {
		t.Fatalf("/compact: %q %q", stop, got)
	}
	resp, seen := a.until(a.prompt(sid, "next"), nil)
	if _, texts := messages(t, seen, "agent_message_chunk"); stopReason(t, resp) != "end_turn" || len(texts) != 1 || !hasValue(texts, "after the summary") {
		t.Fatalf("after /compact: %s %v", resp.raw, texts)
	}
	resp, seen = a.until(a.prompt(sid, "/compactor please"), nil)
	if _, texts := messages(t, seen, "agent_message_chunk"); stopReason(t, resp) != "end_turn" || !hasValue(texts, "compactor reply") {
		t.Fatalf("/compactor: %s %v", resp.raw, texts)
	}
	a.call("session/close", map[string]any{"sessionId": sid})
	_, replay := a.call("session/load", map[string]any{"sessionId": sid, "cwd": ws.Cwd, "mcpServers": []any{}})
	lines := strings.Join(transcript(t, replay), "\n")
	if strings.Contains(lines, "/compact\n") || strings.Contains(lines, "keep the file names") || !strings.Contains(lines, "hello") {
		t.Errorf("replay:\n%s", lines)
	}
	a.wantExit(0)
}

func hasValue(m map[string]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}

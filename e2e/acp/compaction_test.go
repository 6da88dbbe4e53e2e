//go:build unix

package acp

import (
	"fmt"
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

package worker

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestSessionResult: the session.create/open result is one JSON object
// with the session ID, durability, revision and every notice, in order
// (docs/protocol.md, session.open).
func TestSessionResult(t *testing.T) {
	for _, notices := range [][]string{nil, {"saved_selection_notice"}, {"saved_selection_unavailable", "saved_selection_notice", "x"}} {
		raw := sessionResult("s-1", true, "v1", notices)
		var res struct {
			SessionID string   `json:"session_id"`
			Durable   bool     `json:"durable"`
			Revision  string   `json:"revision"`
			Notices   []string `json:"notices"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("result %s: %v", raw, err)
		}
		if res.SessionID != "s-1" || !res.Durable || res.Revision != "v1" || res.Notices == nil || !slices.Equal(res.Notices, notices) && len(notices) > 0 {
			t.Fatalf("result %s; want notices %q", raw, notices)
		}
	}
}

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/magi-code/magi-code/protocol"
)

// TestPermissionExpiryOnTheAgentsClock: the whole agent (requests, the
// turn, the runner, the approver, its own time.After) in a synctest bubble,
// as serve's approval expiry is tested, so that 60 s pass at once. A
// request nobody answers expires exactly protocol.ApprovalExpiry after it
// was sent: default deny ($/cancel_request for it, the call failed and
// not run, the turn goes on); a late allow changes nothing, not even a
// frame. One answered just before the expiry is honoured.
func TestPermissionExpiryOnTheAgentsClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newAgentHarness(t, "ask", `{"responses":[`+
			`{"steps":[{"tool_call":{"name":"write_file","arguments":{"path":"late.txt","content":"x"}}}]},{"steps":[{"text":"ok"}]},`+
			`{"steps":[{"tool_call":{"name":"write_file","arguments":{"path":"inTime.txt","content":"y"}}}]},{"steps":[{"text":"ok"}]}]}`, true)
		h.guard = 10 * time.Minute // bubble time: past the expiry
		sid := h.session()

		var reqID string
		var asked time.Time
		prompt := `{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"go"}]}`
		resp, seen := h.until(h.request("session/prompt", prompt), func(f string) {
			if id, ok := permissionID(f); ok {
				reqID, asked = id, time.Now()
			}
			if strings.Contains(f, `"method":"$/cancel_request"`) {
				if waited := time.Since(asked); waited != protocol.ApprovalExpiry {
					t.Errorf("expired after %v; want %v", waited, protocol.ApprovalExpiry)
				}
			}
		})
		if !strings.Contains(resp, `"stopReason":"end_turn"`) || reqID == "" {
			t.Fatalf("prompt: %s", resp)
		}
		all := strings.Join(seen, "")
		if !strings.Contains(all, `"method":"$/cancel_request","params":{"requestId":`+reqID+`}`) {
			t.Errorf("no $/cancel_request for %s in %q", reqID, seen)
		}
		if !strings.Contains(all, `"status":"failed"`) || strings.Contains(all, `"status":"in_progress"`) || strings.Contains(all, `"status":"completed"`) {
			t.Errorf("the expired call: %q", seen)
		}
		// The late answer: nothing runs, nothing is sent.
		h.line(`{"jsonrpc":"2.0","id":` + reqID + `,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`)
		synctest.Wait()
		select {
		case f := <-h.out.frames:
			t.Errorf("a frame after the late answer: %s", f)
		default:
		}
		if _, err := os.Stat(filepath.Join(h.cwd, "late.txt")); err == nil {
			t.Error("the expired call ran")
		}

		// Answered 1 ms before the expiry: allowed.
		resp, seen = h.until(h.request("session/prompt", prompt), func(f string) {
			if id, ok := permissionID(f); ok {
				time.Sleep(protocol.ApprovalExpiry - time.Millisecond)
				h.line(`{"jsonrpc":"2.0","id":` + id + `,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`)
			}
		})
		if !strings.Contains(resp, `"stopReason":"end_turn"`) || strings.Contains(strings.Join(seen, ""), "$/cancel_request") {
			t.Fatalf("answered in time: %s, %q", resp, seen)
		}
		if b, err := os.ReadFile(filepath.Join(h.cwd, "inTime.txt")); err != nil || string(b) != "y" {
			t.Errorf("the call answered in time did not run: %q, %v", b, err)
		}
		h.a.Close(t.Context())
	})
}

// permissionID is the id of a session/request_permission frame.
func permissionID(f string) (string, bool) {
	if !strings.Contains(f, `"method":"session/request_permission"`) {
		return "", false
	}
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal([]byte(f), &m)
	return string(m.ID), true
}

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
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

// TestNothingFollowsClose: a session/close read while session/new is
// still sending what follows its answer (here: held in the writer just
// as the answer is written) answers only after it: the answer, then the
// commands, then close's answer, and nothing of the session after.
func TestNothingFollowsClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newAgentHarness(t, "auto", "", true)
		h.guard = time.Minute
		h.until(h.request("initialize", `{"protocolVersion":1}`), nil)
		answers, release := make(chan string, 1), make(chan struct{})
		h.out.hold = func(f string) {
			if strings.HasPrefix(f, `{"jsonrpc":"2.0","id":2,"result"`) {
				answers <- f
				<-release
			}
		}
		h.request("session/new", `{"cwd":`+strconv.Quote(h.cwd)+`,"mcpServers":[]}`)
		var res struct {
			Result struct {
				SessionID string `json:"sessionId"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(<-answers), &res); err != nil {
			t.Fatal(err)
		}
		h.request("session/close", `{"sessionId":"`+res.Result.SessionID+`"}`)
		synctest.Wait() // close has done all it can
		close(release)
		_, seen := h.until("3", nil)
		var kinds []string
		for _, f := range seen {
			switch {
			case strings.HasPrefix(f, `{"jsonrpc":"2.0","id":2,`):
				kinds = append(kinds, "new answer")
			case strings.Contains(f, `"available_commands_update"`):
				kinds = append(kinds, "commands")
			default:
				kinds = append(kinds, f)
			}
		}
		if strings.Join(kinds, "|") != "new answer|commands" {
			t.Errorf("before close's answer: %q", kinds)
		}
		synctest.Wait()
		select {
		case f := <-h.out.frames:
			t.Errorf("after close's answer: %s", f)
		default:
		}
		h.a.Close(t.Context())
	})
}

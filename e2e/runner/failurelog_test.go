package runner

import (
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestFailureDetailsInLogs: a run's failure whose message sends the person
// to `magi-code logs` (a provider failure whose reason could not be told)
// has its details there: the cause's own words; a provider's HTTP failure
// logs its reason and status, never the provider's answer (a secret in it
// stays out); a failed tool call logs its tool and summary. Read through
// the real `magi-code logs`.
func TestFailureDetailsInLogs(t *testing.T) {
	t.Parallel()
	const token = "ghp_" + "Zq8Xw3Lm9Vt2Rk7Np4Hs6Jd1Fb5Gc0Ya8Ue3"
	for _, c := range []struct {
		name   string
		answer func() []string
		status int
		tool   bool   // a failed tool call in a completed turn
		says   string // the diagnostic's words
		logs   string // what `magi-code logs` must print
	}{
		{name: "unknown reason", says: "`magi-code logs` has the details", logs: "provider call failed: unknown: openai: tool calls over the per-response bound",
			answer: func() []string {
				return []string{oaChunk(`{"role":"assistant","content":""}`, ""),
					oaChunk(`{"tool_calls":[{"index":100000,"id":"c1","type":"function","function":{"name":"shell","arguments":""}}]}`, ""), oaDone}
			}},
		{name: "tool failure", tool: true, says: "", logs: `"msg":"tool failed","invocation":"local_agent","run_id":`},
		{name: "HTTP 400", status: 400, says: "refused the request as invalid", logs: "provider call failed: bad_request, HTTP 400"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var answer = statusAnswer(c.status, `{"error":{"type":"invalid_request_error","message":"bad `+token+`"}}`)
			if c.answer != nil {
				answer = sseAnswer(false, c.answer()...)
			}
			answers := []http.HandlerFunc{answer}
			if c.tool {
				answers = []http.HandlerFunc{oaCall("c1", "read_file", map[string]any{"path": "missing.txt"}), sseAnswer(false, oaTextResponse("none")...)}
			}
			llm := newLLMServer(t, answers...)
			ws := clienttest.NewWorkspace(t, openaiFormat.settings(llm.srv.URL))
			ch := startChild(t, ws, client.Options{Env: append(ws.Env(), "OPENAI_API_KEY=sk-test-logs")})
			r := ch.Turn(ch.Create().SessionID, "go")
			if c.tool {
				r.WantOutcome(t, "completed", "")
			} else {
				r.WantOutcome(t, "failed", "execution_failed")
			}
			said := ""
			for _, ev := range r.Events {
				if ev.Name == protocol.EventDiagnostic {
					var d struct{ Summary string }
					_ = ev.Decode(&d)
					said += d.Summary
				}
			}
			if !strings.Contains(said, c.says) {
				t.Fatalf("diagnostic %q; want %q", said, c.says)
			}
			ch.Shutdown()
			cmd := exec.Command(clienttest.Binary(t), "logs")
			cmd.Env, cmd.Dir = ws.Env(), ws.Cwd
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("magi-code logs: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), c.logs) || c.tool != strings.Contains(string(out), `"tool":"read_file","summary":"read_file: not found"`) ||
				c.tool == strings.Contains(string(out), `"msg":"turn failure"`) {
				t.Fatalf("magi-code logs lacks %q:\n%s", c.logs, out)
			}
			if strings.Contains(string(out), token[:12]) {
				t.Fatalf("the provider's answer reached the log:\n%s", out)
			}
		})
	}
}

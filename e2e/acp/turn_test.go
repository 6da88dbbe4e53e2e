//go:build unix

package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client/clienttest"
	runagent "github.com/magi-code/magi-code/runner/agent"
)

var (
	text, repeat, sleepMs = clienttest.Text, clienttest.Repeat, clienttest.SleepMs
	shell, response       = clienttest.Shell, clienttest.Response
)

// secret is a token the redaction catches (an Anthropic key's shape).
const secret = "sk-ant-api03-" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA-BBBBBBAA"

// TestStreamedReply: initialize answers with the capabilities; a prompt
// streams agent_message_chunk with one messageId whose concatenation is
// the reply (redacted, nothing sent twice, the secret split across deltas
// caught); the answer ends the turn and nothing of it follows.
func TestStreamedReply(t *testing.T) {
	half := len(secret) / 2
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		response(text("Hello "), repeat("ab", 3000), text(" key "+secret[:half]), text(secret[half:]+" end")),
	}})
	a := start(t, ws)
	r, _ := a.call("initialize", map[string]any{"protocolVersion": 1})
	var init struct {
		ProtocolVersion int `json:"protocolVersion"`
		Caps            struct {
			LoadSession bool `json:"loadSession"`
			Prompt      struct {
				EmbeddedContext bool `json:"embeddedContext"`
			} `json:"promptCapabilities"`
		} `json:"agentCapabilities"`
		AuthMethods []struct {
			ID string `json:"id"`
		} `json:"authMethods"`
	}
	if err := json.Unmarshal(r.Result, &init); err != nil || init.ProtocolVersion != 1 || !init.Caps.LoadSession ||
		!init.Caps.Prompt.EmbeddedContext || len(init.AuthMethods) == 0 {
		t.Fatalf("initialize: %s", r.raw)
	}
	sid := a.newSession()
	resp, seen := a.until(a.prompt(sid, "hi"), nil)
	if got := stopReason(t, resp); got != "end_turn" {
		t.Fatalf("stop reason %q: %s", got, resp.raw)
	}
	ids, texts := messages(t, seen, "agent_message_chunk")
	want := "Hello " + strings.Repeat("ab", 3000) + " key [REDACTED] end"
	if len(ids) != 1 || texts[ids[0]] != want {
		t.Fatalf("message %d ids, text %.80q...; want %.80q", len(ids), texts[ids[0]], want)
	}
	for _, f := range seen {
		if strings.Contains(f.raw, secret[:20]) {
			t.Errorf("the secret reached a frame: %.200s", f.raw)
		}
	}
	// Nothing follows the answer: the next frame is the next request's.
	id := a.request("session/list", map[string]any{})
	if f := a.next(); string(f.ID) != id || f.Method != "" {
		t.Fatalf("after the prompt's answer: %.200s", f.raw)
	}
	a.wantExit(0)
}

// TestMalformed: a line that is not JSON gets -32700 with id null, an
// unknown method -32601; neither echoes the input, and the connection
// goes on.
func TestMalformed(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	a := start(t, ws)
	a.initialize()
	const marker = "ECHOME"
	a.sendLine(`{"jsonrpc":"2.0","id":1,"method":"` + marker)
	f := a.next()
	if f.Error == nil || f.Error.Code != -32700 || string(f.ID) != "null" || strings.Contains(f.raw, marker) {
		t.Errorf("malformed: %s", f.raw)
	}
	a.sendLine(`{"jsonrpc":"2.0","id":77,"method":"x/` + marker + `","params":{}}`)
	f = a.next()
	if f.Error == nil || f.Error.Code != -32601 || string(f.ID) != "77" || strings.Contains(f.raw, marker) {
		t.Errorf("unknown method: %s", f.raw)
	}
	a.sendLine(`[1,2,3]`)
	if f = a.next(); f.Error == nil || f.Error.Code != -32600 || string(f.ID) != "null" {
		t.Errorf("not a message: %s", f.raw)
	}
	sid := a.newSession() // still usable
	r, _ := a.until(a.prompt(sid, "echo this"), nil)
	if stopReason(t, r) != "end_turn" {
		t.Errorf("prompt after errors: %s", r.raw)
	}
	a.wantExit(0)
}

// TestBadCwd: session/new needs an absolute cwd of a directory.
func TestBadCwd(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	a := start(t, ws)
	a.initialize()
	file := filepath.Join(ws.Cwd, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cwd := range []string{"relative/dir", "", file, filepath.Join(ws.Cwd, "missing")} {
		r, _ := a.call("session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
		if r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("cwd %q: %s", cwd, r.raw)
		}
	}
	a.wantExit(0)
}

// TestSecondPrompt: a prompt while one runs is refused with busy; the
// first goes on to end_turn.
func TestSecondPrompt(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		response(text("first "), sleepMs(300), text("done")),
	}})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	first := a.prompt(sid, "one")
	second := a.prompt(sid, "two")
	var firstResp, secondResp frame
	var seen []frame
	for firstResp.raw == "" {
		f := a.next()
		switch {
		case string(f.ID) == first:
			firstResp = f
		case string(f.ID) == second:
			secondResp = f
		default:
			seen = append(seen, f)
		}
	}
	if secondResp.Error == nil || secondResp.Error.Data.Code != "busy" {
		t.Errorf("second prompt: %q", secondResp.raw)
	}
	_, texts := messages(t, seen, "agent_message_chunk")
	if stopReason(t, firstResp) != "end_turn" || len(texts) != 1 {
		t.Errorf("first prompt: %s, texts %v", firstResp.raw, texts)
	}
	for _, s := range texts {
		if s != "first done" {
			t.Errorf("first reply %q", s)
		}
	}
	a.wantExit(0)
}

// TestInitializeReadsNoSettings: initialize answers whatever the settings
// hold (it does no settings, provider or network work); a session in a
// cwd whose settings are broken fails with their code, and the
// connection goes on.
func TestInitializeReadsNoSettings(t *testing.T) {
	ws := clienttest.NewWorkspace(t, "provider = [broken\n")
	a := start(t, ws)
	a.initialize()
	r, _ := a.call("session/new", map[string]any{"cwd": ws.Cwd, "mcpServers": []any{}})
	if r.Error == nil || r.Error.Code != -32603 || r.Error.Data.Code != "configuration_invalid" {
		t.Errorf("session/new: %s", r.raw)
	}
	a.wantExit(0)
}

// TestMaxTokensStop: a reply the provider ended at its output token limit
// (the fixture's stop step) answers max_tokens with the text that came; a
// tool round cut that way does not count once a later reply is whole.
func TestMaxTokensStop(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		response(text("cut he"), clienttest.Step{"stop": "max_tokens"}),
		response(text("whole")),
	}})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	resp, seen := a.until(a.prompt(sid, "long"), nil)
	if got := stopReason(t, resp); got != "max_tokens" {
		t.Fatalf("stop reason %q: %s", got, resp.raw)
	}
	if ids, texts := messages(t, seen, "agent_message_chunk"); len(ids) != 1 || texts[ids[0]] != "cut he" {
		t.Fatalf("message %v", texts)
	}
	if resp, _ = a.until(a.prompt(sid, "again"), nil); stopReason(t, resp) != "end_turn" {
		t.Fatalf("next prompt: %s", resp.raw)
	}
	a.wantExit(0)
}

// TestRoundLimitStop: a model that keeps calling tools reaches the run's
// bound of model requests (agent.DefaultMaxRounds): max_turn_requests, not
// an error; the session takes the next prompt.
func TestRoundLimitStop(t *testing.T) {
	script := make([][]clienttest.Step, 0, runagent.DefaultMaxRounds+1)
	for range runagent.DefaultMaxRounds {
		script = append(script, response(clienttest.Step{"tool_call": map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}}))
	}
	script = append(script, response(text("after")))
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: script})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	if resp, _ := a.until(a.prompt(sid, "loop"), nil); stopReason(t, resp) != "max_turn_requests" {
		t.Fatalf("stop reason: %s", resp.raw)
	}
	// Exactly the bound's responses were consumed: the next is the last.
	resp, seen := a.until(a.prompt(sid, "again"), nil)
	if _, texts := messages(t, seen, "agent_message_chunk"); stopReason(t, resp) != "end_turn" || len(texts) != 1 || !hasValue(texts, "after") {
		t.Fatalf("next prompt: %s %v", resp.raw, texts)
	}
	a.wantExit(0)
}

// TestOverlongLine: a line over the 8 MiB input bound never closes the
// connection: a request whose id comes first gets -32602 frame_too_large
// with that id, one whose id cannot be read (or that is not JSON) -32600
// with id null, none of them echoing the input; an over-long answer to
// fs/read_text_file fails that read (the tool call fails, the turn ends);
// the session goes on.
func TestOverlongLine(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "auto", Responses: [][]clienttest.Step{
		response(clienttest.ToolCall("read_file", map[string]any{"path": "f.txt"})), response(text("read done")),
	}})
	ws.WriteFile(t, filepath.Join(ws.Cwd, "f.txt"), "on disk")
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	const marker = "ECHOME"
	big := strings.Repeat(marker, (9<<20)/len(marker))
	a.sendLine(`{"jsonrpc":"2.0","id":"p-9","method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"` + big + `"}]}}`)
	answer := func() frame { // the next response, past the session's updates
		for {
			if f := a.next(); f.Method == "" {
				return f
			}
		}
	}
	f := answer()
	if f.Error == nil || f.Error.Code != -32602 || f.Error.Data.Code != "frame_too_large" || string(f.ID) != `"p-9"` || strings.Contains(f.raw, marker) {
		t.Errorf("over-long prompt: %.300s", f.raw)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"` + big + `"}]},"id":3}`,
		big,
	} {
		a.sendLine(line)
		if f = answer(); f.Error == nil || f.Error.Code != -32600 || f.Error.Data.Code != "frame_too_large" || string(f.ID) != "null" || strings.Contains(f.raw, marker) {
			t.Errorf("over-long line without a readable id: %.300s", f.raw)
		}
	}
	var reads int
	r, seen := a.until(a.prompt(sid, "read it"), func(f frame) {
		if f.Method == "fs/read_text_file" {
			reads++
			a.sendLine(`{"jsonrpc":"2.0","id":` + string(f.ID) + `,"result":{"content":"` + big + `"}}`)
		}
	})
	var callID string
	for _, f := range seen {
		if f.Method == "session/update" && callID == "" {
			callID = f.update(t).Update.ToolCallID
		}
	}
	statuses, _ := toolStatuses(t, seen, callID)
	if stopReason(t, r) != "end_turn" || reads != 1 || len(statuses) == 0 || statuses[len(statuses)-1] != "failed" {
		t.Errorf("over-long fs answer: %s, %d reads, statuses %q", r.raw, reads, statuses)
	}
	if r, _ = a.until(a.prompt(sid, "still here"), nil); stopReason(t, r) != "end_turn" {
		t.Errorf("prompt after the over-long lines: %s", r.raw)
	}
	a.wantExit(0)
}

// TestUsageUpdate: a response whose provider reports usage sends one
// usage_update (used: its input and output tokens; size: the context
// window, at least used) before the prompt's answer; a response without
// usage sends none.
func TestUsageUpdate(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		response(text("counted"), clienttest.Step{"usage": map[string]any{"input_tokens": 1200, "output_tokens": 34}}),
		response(text("not counted")),
	}})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	usages := func(seen []frame) (out []string) {
		for _, f := range seen {
			if f.Method != "session/update" || f.update(t).Update.Kind != "usage_update" {
				continue
			}
			var p struct {
				Update struct {
					Used, Size int
				} `json:"update"`
			}
			if json.Unmarshal(f.Params, &p) != nil || p.Update.Size < p.Update.Used {
				t.Errorf("usage_update %s", f.raw)
			}
			out = append(out, strconv.Itoa(p.Update.Used))
		}
		return out
	}
	resp, seen := a.until(a.prompt(sid, "one"), nil)
	if got := usages(seen); stopReason(t, resp) != "end_turn" || strings.Join(got, ",") != "1234" {
		t.Errorf("usage of a response that reports it: %q (%s)", got, resp.raw)
	}
	resp, seen = a.until(a.prompt(sid, "two"), nil)
	if got := usages(seen); stopReason(t, resp) != "end_turn" || len(got) != 0 {
		t.Errorf("usage of a response that reports none: %q", got)
	}
	a.wantExit(0)
}

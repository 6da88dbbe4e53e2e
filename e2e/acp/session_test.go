//go:build unix

package acp

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// transcript is what a client shows of a session: its messages (kind and
// text per messageId, in order) and its tool calls' final states.
func transcript(t testing.TB, frames []frame) []string {
	var out []string
	index := map[string]int{}
	titles := map[string]string{}
	for _, f := range frames {
		if f.Method != "session/update" {
			continue
		}
		u := f.update(t).Update
		switch u.Kind {
		case "user_message_chunk", "agent_message_chunk":
			key := u.Kind + "/" + u.MessageID
			if i, ok := index[key]; ok {
				out[i] += u.Text
				continue
			}
			index[key] = len(out)
			out = append(out, u.Kind+" "+u.MessageID+": "+u.Text)
		case "tool_call", "tool_call_update":
			key := "tool/" + u.ToolCallID
			if _, ok := titles[key]; !ok {
				titles[key] = u.Title
			}
			line := "tool " + u.ToolCallID + " " + titles[key] + " " + u.Status
			if i, ok := index[key]; ok {
				if u.Status != "" {
					out[i] = line
				}
				continue
			}
			index[key] = len(out)
			out = append(out, line)
		}
	}
	return out
}

// TestLoadInNewProcess: a session made in one process loads in another:
// the replay (before load's answer) shows the same user messages, agent
// messages with the same messageIds and text, and tool calls with their
// final status, as the live turn did; list shows it in its cwd; resume
// opens it without replay; the leases keep it in one process at a time.
func TestLoadInNewProcess(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "auto", Extra: "unsandboxed_auto = true\n", Responses: [][]clienttest.Step{
		response(text("let me look"), shell("echo hi")), response(text("it said "), text("hi")),
	}})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	resp, live := a.until(a.prompt(sid, "first prompt\nsecond line"), nil)
	if stopReason(t, resp) != "end_turn" {
		t.Fatal(resp.raw)
	}
	liveT := append([]string{"user_message_chunk"}, transcript(t, live)...)

	b := start(t, ws)
	b.initialize()
	r, _ := b.call("session/load", map[string]any{"sessionId": sid, "cwd": ws.Cwd, "mcpServers": []any{}})
	if r.Error == nil || r.Error.Data.Code != "session_busy" {
		t.Fatalf("load while the first process holds it: %s", r.raw)
	}
	if r, _ := a.call("session/close", map[string]any{"sessionId": sid}); r.Error != nil {
		t.Fatalf("close: %s", r.raw)
	}
	r, replay := b.call("session/load", map[string]any{"sessionId": sid, "cwd": ws.Cwd, "mcpServers": []any{}})
	if r.Error != nil {
		t.Fatalf("load: %s", r.raw)
	}
	got := transcript(t, replay)
	if len(got) == 0 || !strings.HasPrefix(got[0], "user_message_chunk ") || !strings.HasSuffix(got[0], ": first prompt\nsecond line") {
		t.Fatalf("replay starts with %q", got)
	}
	if strings.Join(got[1:], "\n") != strings.Join(liveT[1:], "\n") {
		t.Errorf("replay:\n%s\nlive:\n%s", strings.Join(got[1:], "\n"), strings.Join(liveT[1:], "\n"))
	}

	// list: the session, in its cwd, titled by the first line.
	r, _ = b.call("session/list", map[string]any{"cwd": ws.Cwd})
	var list struct {
		Sessions []struct {
			SessionID, Cwd, Title string
		} `json:"sessions"`
	}
	if err := json.Unmarshal(r.Result, &list); err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid ||
		list.Sessions[0].Title != "first prompt" {
		t.Errorf("list: %s", r.raw)
	}
	other := t.TempDir()
	if r, _ = b.call("session/list", map[string]any{"cwd": other}); !strings.Contains(r.raw, `"sessions":[]`) {
		t.Errorf("list of another cwd: %s", r.raw)
	}
	if r, _ = b.call("session/list", map[string]any{"cwd": "work"}); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("list of a relative cwd: %s", r.raw)
	}
	if r, _ = b.call("session/list", map[string]any{"cwd": ws.Cwd, "cursor": "NTA"}); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("list with a cursor the agent did not make: %s", r.raw)
	}
	// The workspace check: another cwd does not load it.
	b.call("session/close", map[string]any{"sessionId": sid})
	if r, _ = b.call("session/resume", map[string]any{"sessionId": sid, "cwd": other, "mcpServers": []any{}}); r.Error == nil || r.Error.Data.Code != "cwd_mismatch" {
		t.Errorf("resume in another cwd: %s", r.raw)
	}
	r, seen := b.call("session/resume", map[string]any{"sessionId": sid, "cwd": ws.Cwd, "mcpServers": []any{}})
	if r.Error != nil || len(transcript(t, seen)) != 0 {
		t.Errorf("resume: %s, %d updates before", r.raw, len(seen))
	}
	a.wantExit(0)
	b.wantExit(0)
}

// TestOpensInServe: a session made over ACP opens under serve --stdio
// (Mission Control's pipeline), with its history, once the ACP process
// released it; and one made under serve loads over ACP.
func TestOpensInServe(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	a.until(a.prompt(sid, "from the editor"), nil)
	a.wantExit(0)

	ch := ws.StartChild(t, client.Options{})
	res := ch.Open(sid)
	entries, _, _ := ch.History(sid, res.Revision)
	var texts []string
	for _, e := range entries {
		texts = append(texts, e.Kind+":"+e.Text)
	}
	if strings.Join(texts, "|") != "user:from the editor|assistant:echo: from the editor" {
		t.Errorf("history under serve: %q", texts)
	}
	other := ch.Create().SessionID
	ch.Turn(other, "from mission control")
	ch.Shutdown()

	b := start(t, ws)
	b.initialize()
	r, replay := b.call("session/load", map[string]any{"sessionId": other, "cwd": ws.Cwd, "mcpServers": []any{}})
	got := transcript(t, replay)
	if r.Error != nil || len(got) != 2 || !strings.HasSuffix(got[1], ": echo: from mission control") {
		t.Errorf("load of serve's session: %s, %q", r.raw, got)
	}
	b.wantExit(0)
}

// TestLeasesAcrossFrontDoors: one store, the same leases: a session an
// ACP process holds does not open under serve (Mission Control's
// pipeline) until session/close releases it, and one that serve holds
// does not load or resume over ACP until serve lets it go.
func TestLeasesAcrossFrontDoors(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	a.until(a.prompt(sid, "from the editor"), nil)

	ch := ws.StartChild(t, client.Options{})
	ch.WantError("session.open", map[string]any{"session_id": sid}, protocol.CodeSessionBusy)
	if r, _ := a.call("session/close", map[string]any{"sessionId": sid}); r.Error != nil {
		t.Fatalf("close: %s", r.raw)
	}
	ch.Open(sid)
	for _, m := range []string{"session/load", "session/resume"} {
		r, seen := a.call(m, map[string]any{"sessionId": sid, "cwd": ws.Cwd, "mcpServers": []any{}})
		if r.Error == nil || r.Error.Data.Code != "session_busy" || len(seen) != 0 {
			t.Errorf("%s while serve holds it: %s (%d frames before)", m, r.raw, len(seen))
		}
	}
	ch.Shutdown()
	if r, _ := a.call("session/resume", map[string]any{"sessionId": sid, "cwd": ws.Cwd, "mcpServers": []any{}}); r.Error != nil {
		t.Errorf("resume once serve let it go: %s", r.raw)
	}
	a.wantExit(0)
}

// TestConfigOptions: set_config_option answers the whole list; an unknown
// option or value is -32602; set_mode keeps the legacy mode in sync; the
// read-only mode refuses a write without asking.
func TestConfigOptions(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Approval: "ask", Responses: [][]clienttest.Step{
		response(shell("echo x > written")), response(text("no")),
	}})
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	r, _ := a.call("session/set_config_option", map[string]any{"sessionId": sid, "configId": "mode", "value": "read-only"})
	var res struct {
		ConfigOptions []struct {
			ID           string `json:"id"`
			CurrentValue string `json:"currentValue"`
		} `json:"configOptions"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil || len(res.ConfigOptions) != 3 || res.ConfigOptions[0].CurrentValue != "read-only" {
		t.Fatalf("set mode: %s", r.raw)
	}
	for _, bad := range []map[string]any{
		{"sessionId": sid, "configId": "mode", "value": "yolo"},
		{"sessionId": sid, "configId": "nope", "value": "ask"},
		{"sessionId": sid, "configId": "thought_level", "value": "extreme"},
		{"sessionId": sid, "configId": "model", "value": "other-model"},
	} {
		if r, _ := a.call("session/set_config_option", bad); r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("%v: %s", bad, r.raw)
		}
	}
	asked := false
	resp, _ := a.until(a.prompt(sid, "write"), func(f frame) {
		if f.Method == "session/request_permission" {
			asked = true
			a.respond(f.ID, selected("allow_once"))
		}
	})
	if stopReason(t, resp) != "end_turn" || asked {
		t.Errorf("read-only: %s, asked %v", resp.raw, asked)
	}
	if _, err := os.Stat(filepath.Join(ws.Cwd, "written")); err == nil {
		t.Error("read-only ran a shell command")
	}
	r, after := a.call("session/set_mode", map[string]any{"sessionId": sid, "modeId": "auto"})
	if r.Error != nil {
		t.Errorf("set_mode: %s", r.raw)
	}
	if f := a.next(); f.Method != "session/update" || f.update(t).Update.Kind != "config_option_update" || len(after) != 0 {
		t.Errorf("after set_mode: %s", f.raw)
	}
	a.wantExit(0)
}

// TestEmbeddedResource: a 100 KB resource reaches the model whole; one
// over the per-resource bound is cut with the marker; the connection
// stays.
func TestEmbeddedResource(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{}) // the fixture echoes the prompt
	a := start(t, ws)
	a.initialize()
	sid := a.newSession()
	body := strings.Repeat("0123456789abcdef\n", 100_000/17)
	for _, tc := range []struct {
		text   string
		marker bool
	}{{body, false}, {strings.Repeat("z", 1<<20+10), true}} {
		resp, seen := a.until(a.request("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{
			map[string]any{"type": "text", "text": "see"},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///w/a.txt", "text": tc.text}},
		}}), nil)
		if stopReason(t, resp) != "end_turn" {
			t.Fatalf("prompt: %.300s", resp.raw)
		}
		ids, texts := messages(t, seen, "agent_message_chunk")
		reply := texts[ids[0]]
		if tc.marker != strings.Contains(reply, "[magi-code: this resource was cut at 1 MiB]") ||
			!strings.Contains(reply, `<context uri="file:///w/a.txt">`) || (!tc.marker && !strings.Contains(reply, body)) {
			t.Errorf("reply of %d bytes: %.200q", len(reply), reply)
		}
	}
	a.wantExit(0)
}

// TestLaunchRefused: a regular file or /dev/null on stdin or stdout exits
// 2 before creating anything.
func TestLaunchRefused(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{})
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	for _, tc := range []struct {
		name    string
		in, out *os.File
	}{{"stdout a file", nil, f}, {"stdin /dev/null", null, nil}} {
		cmd := exec.Command(clienttest.Binary(t), "acp")
		cmd.Dir, cmd.Env = ws.Cwd, ws.Env()
		if tc.in != nil {
			cmd.Stdin = tc.in
		} else {
			cmd.Stdin = strings.NewReader("")
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if tc.out != nil {
			cmd.Stdout = tc.out
		} else {
			cmd.Stdout = &strings.Builder{}
		}
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || stderr.Len() == 0 {
			t.Errorf("%s: %v, stderr %q", tc.name, err, stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(ws.Home, "sessions")); err == nil {
		t.Error("a refused launch created the sessions directory")
	}
	if _, err := os.Stat(filepath.Join(ws.Home, "logs")); err == nil {
		t.Error("a refused launch created the log directory")
	}
}

// TestLoadChunkedReply: a long reply serve stored in 16 KiB chunks, with a
// secret across a chunk boundary, loads over ACP as one message whose
// chunks join to the reply, redacted.
func TestLoadChunkedReply(t *testing.T) {
	pad := strings.Repeat("p", 16384-21) + " "
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		// serve stores a chunk once 16 KiB is reached, at a delta's end: the
		// first ends inside the secret.
		response(text(pad), text(secret[:30]), text(secret[30:]+" "), repeat("q", 20000), text(" end")),
	}})
	a, replay := loadServeTurn(t, ws, "long one")
	ids, texts := messages(t, replay, "agent_message_chunk")
	want := pad + "[REDACTED] " + strings.Repeat("q", 20000) + " end"
	if len(ids) != 1 || texts[ids[0]] != want {
		t.Errorf("replayed %d messages, %d bytes; want 1 of %d", len(ids), len(texts[ids[0]]), len(want))
	}
	for _, f := range replay {
		if strings.Contains(f.raw, secret[:20]) || strings.Contains(f.raw, secret[len(secret)-20:]) {
			t.Errorf("a piece of the secret reached a frame")
		}
	}
	a.wantExit(0)
}

// TestLoadPartialReplyOfAFailedTurn: serve marks where a reply began when
// the provider fails after it (an empty chunk before the diagnostic, the
// text in the completion after it); the load over ACP replays the text.
func TestLoadPartialReplyOfAFailedTurn(t *testing.T) {
	ws := clienttest.NewFixtureWorkspace(t, clienttest.Fixture{Responses: [][]clienttest.Step{
		response(text("half of the answer"), clienttest.Step{"error": "server_error"}),
	}})
	a, replay := loadServeTurn(t, ws, "fail after a while")
	ids, texts := messages(t, replay, "agent_message_chunk")
	if len(ids) != 1 || texts[ids[0]] != "half of the answer" {
		t.Errorf("replayed %d messages %q; want the partial reply once", len(ids), texts)
	}
	a.wantExit(0)
}

// loadServeTurn runs one turn of prompt in a new session under serve
// --stdio, then loads that session over ACP, and returns the agent and the
// load's frames.
func loadServeTurn(t *testing.T, ws *clienttest.Workspace, prompt string) (*agent, []frame) {
	t.Helper()
	ch := ws.StartChild(t, client.Options{})
	id := ch.Create().SessionID
	ch.Turn(id, prompt)
	ch.Shutdown()

	a := start(t, ws)
	a.initialize()
	r, replay := a.call("session/load", map[string]any{"sessionId": id, "cwd": ws.Cwd, "mcpServers": []any{}})
	if r.Error != nil {
		t.Fatalf("load: %s", r.raw)
	}
	return a, replay
}

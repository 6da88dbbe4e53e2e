package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/magi-code/magi-code/runner"
)

// fakeOut is an Output that keeps every frame, in order, and checks the
// output bound.
type fakeOut struct {
	t      testing.TB
	frames chan string
	// hold, when set, sees each frame before it is kept (and may block).
	hold func(frame string)
}

func (o *fakeOut) put(b []byte) error {
	if o.hold != nil {
		o.hold(string(b))
	}
	if len(b) > maxFrame || b[len(b)-1] != '\n' || strings.Count(string(b), "\n") != 1 || !json.Valid(b) {
		o.t.Errorf("bad frame (%d bytes): %.200q", len(b), b)
	}
	o.frames <- string(b)
	return nil
}
func (o *fakeOut) Respond(b []byte) error { return o.put(b) }
func (o *fakeOut) Send(b []byte) error    { return o.put(b) }

// clock is an injected After: each call registers a timer the test fires.
type clock struct {
	mu     sync.Mutex
	timers []chan time.Time
	armed  chan struct{}
}

func (c *clock) after(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	c.timers = append(c.timers, ch)
	c.mu.Unlock()
	c.armed <- struct{}{}
	return ch
}

// fire expires the last armed timer.
func (c *clock) fire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers[len(c.timers)-1] <- time.Now()
}

type harness struct {
	t     *testing.T
	a     *Agent
	out   *fakeOut
	clock *clock
	cwd   string
	next  int
	guard time.Duration // how long until waits for an answer
}

// newHarness is an agent over a fixture-provider MC_HOME with script,
// whose permission expiry runs on the harness's clock.
func newHarness(t *testing.T, approval string, script string) *harness {
	h := newAgentHarness(t, approval, script, false)
	return h
}

// newAgentHarness is newHarness; with realClock the agent keeps its own
// clock (time.After), as in production.
func newAgentHarness(t *testing.T, approval string, script string, realClock bool) *harness {
	home, cwd := t.TempDir(), t.TempDir()
	settings := "provider = \"fixture\"\nmodel = \"fixture-model\"\n"
	if script != "" {
		path := filepath.Join(home, "script.json")
		if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
		settings += "[providers.fixture]\nscript = " + strconv.Quote(path) + "\n"
	}
	settings += "[tools]\napproval = \"" + approval + "\"\nunsandboxed_auto = true\n"
	if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, out: &fakeOut{t: t, frames: make(chan string, 1024)}, clock: &clock{armed: make(chan struct{}, 16)}, cwd: cwd, guard: 20 * time.Second}
	after := h.clock.after
	if realClock {
		after = nil
	}
	n := 0
	h.a = New(Options{Env: runner.Env{Home: home, MCHome: home, Cwd: cwd, Getenv: func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return "test-key-not-used" // no request is made: only the model list is read
		}
		return ""
	}},
		Out: h.out, After: after,
		NewID: func() string { n++; return "00000000-0000-4000-8000-" + strconv.FormatInt(int64(100000000000+n), 10) }})
	t.Cleanup(func() { h.a.Close(t.Context()) })
	return h
}

func (h *harness) line(s string) { h.a.Line([]byte(s)) }

// request sends a request and returns its id.
func (h *harness) request(method, params string) string {
	h.next++
	id := strconv.Itoa(h.next)
	h.line(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
	return id
}

// until reads frames up to the response to id.
func (h *harness) until(id string, on func(string)) (resp string, seen []string) {
	h.t.Helper()
	for {
		select {
		case f := <-h.out.frames:
			if strings.HasPrefix(f, `{"jsonrpc":"2.0","id":`+id+`,"result"`) || strings.HasPrefix(f, `{"jsonrpc":"2.0","id":`+id+`,"error"`) {
				return f, seen
			}
			seen = append(seen, f)
			if on != nil {
				on(f)
			}
		case <-time.After(h.guard):
			h.t.Fatalf("no answer to %s; seen %q", id, seen)
		}
	}
}

func (h *harness) session() string {
	h.t.Helper()
	h.until(h.request("initialize", `{"protocolVersion":1}`), nil)
	r, _ := h.until(h.request("session/new", `{"cwd":`+strconv.Quote(h.cwd)+`,"mcpServers":[]}`), nil)
	var res struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(r), &res) != nil || res.Result.SessionID == "" {
		h.t.Fatalf("session/new: %s", r)
	}
	return res.Result.SessionID
}

// TestPermissionExpiry: with nobody answering, the request expires (the
// injected clock fires the 60 s timer): the agent sends $/cancel_request
// for it, the call fails without running, and the client's late answer
// changes nothing.
func TestPermissionExpiry(t *testing.T) {
	h := newHarness(t, "ask", `{"responses":[{"steps":[{"tool_call":{"name":"shell","arguments":{"command":"echo x > ran"}}}]},{"steps":[{"text":"ok"}]}]}`)
	sid := h.session()
	var reqID string
	resp, seen := h.until(h.request("session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"go"}]}`), func(f string) {
		if strings.Contains(f, `"method":"session/request_permission"`) {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal([]byte(f), &m)
			reqID = string(m.ID)
			<-h.clock.armed
			h.clock.fire()
		}
	})
	if !strings.Contains(resp, `"stopReason":"end_turn"`) || reqID == "" {
		t.Fatalf("prompt: %s", resp)
	}
	all := strings.Join(seen, "")
	if !strings.Contains(all, `"method":"$/cancel_request","params":{"requestId":`+reqID+`}`) {
		t.Errorf("no $/cancel_request for %s in %q", reqID, seen)
	}
	if !strings.Contains(all, `"status":"failed"`) || strings.Contains(all, `"status":"in_progress"`) {
		t.Errorf("the expired call: %q", seen)
	}
	h.line(`{"jsonrpc":"2.0","id":` + reqID + `,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`)
	if _, err := os.Stat(filepath.Join(h.cwd, "ran")); err == nil {
		t.Error("the command ran")
	}
}

// TestLosslessChunks: whatever the deltas' split, the chunks of a message
// concatenate to the stored reply as history shows it, each byte once,
// every frame within the bound, secrets caught across deltas.
func TestLosslessChunks(t *testing.T) {
	secret := "sk-ant-api03-" + strings.Repeat("Q", 93) + "-ZZZZZZAA"
	reply := "start " + secret + " " + strings.Repeat("é\"\\<", 9000) + " mid " + secret + "\nend"
	for _, size := range []int{1, 7, 64, 4096, len(reply)} {
		var steps []string
		for i := 0; i < len(reply); {
			j := min(i+size, len(reply))
			for j < len(reply) && !utf8.RuneStart(reply[j]) {
				j++ // the fixture's steps are JSON strings: whole runes
			}
			b, _ := json.Marshal(reply[i:j])
			steps = append(steps, `{"text":`+string(b)+`}`)
			i = j
		}
		h := newHarness(t, "ask", `{"responses":[{"steps":[`+strings.Join(steps, ",")+`]}]}`)
		sid := h.session()
		_, seen := h.until(h.request("session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"go"}]}`), nil)
		var got strings.Builder
		for _, f := range seen {
			var n struct {
				Params struct {
					Update struct {
						Kind    string `json:"sessionUpdate"`
						Content struct {
							Text string `json:"text"`
						} `json:"content"`
					} `json:"update"`
				} `json:"params"`
			}
			if json.Unmarshal([]byte(f), &n) == nil && n.Params.Update.Kind == "agent_message_chunk" {
				got.WriteString(n.Params.Update.Content.Text)
			}
		}
		want := strings.ReplaceAll(reply, secret, "[REDACTED]")
		if got.String() != want {
			t.Errorf("deltas of %d bytes: got %d bytes, want %d", size, got.Len(), len(want))
		}
	}
}

// TestToolFramesBounded: a command of 100 KB whose output is as long keeps
// every frame within the output bound (fakeOut checks each): the title is
// cut with the marker, the output block too.
func TestToolFramesBounded(t *testing.T) {
	long := strings.Repeat("y", 100_000)
	h := newHarness(t, "auto", `{"responses":[{"steps":[{"tool_call":{"name":"shell","arguments":{"command":"echo `+long+`"}}}]},{"steps":[{"text":"ok"}]}]}`)
	sid := h.session()
	resp, seen := h.until(h.request("session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"go"}]}`), nil)
	if !strings.Contains(resp, "end_turn") {
		t.Fatalf("prompt: %s", resp)
	}
	var final string
	for _, f := range seen {
		if strings.Contains(f, `"status":"completed"`) {
			final = f
		}
	}
	if final == "" || !strings.Contains(final, cutMarker[1:]) || !strings.Contains(final, `"title":"echo yyyy`) {
		t.Errorf("final update: %.300s", final)
	}
}

func TestPromptText(t *testing.T) {
	raw := func(blocks ...string) []json.RawMessage {
		out := make([]json.RawMessage, len(blocks))
		for i, b := range blocks {
			out[i] = json.RawMessage(b)
		}
		return out
	}
	big := strings.Repeat("é", MaxResourceBytes/2+1)
	for _, tc := range []struct {
		name   string
		blocks []json.RawMessage
		want   string
		code   string
	}{
		{"text", raw(`{"type":"text","text":"hi"}`), "hi", ""},
		{"link", raw(`{"type":"text","text":"see"}`, `{"type":"resource_link","uri":"file:///a","name":"a"}`), "see\n[@a](file:///a)\n", ""},
		{"resource", raw(`{"type":"resource","resource":{"uri":"file:///a\"b","text":"body"}}`), "<context uri=\"file:///a%22b\">\nbody\n</context>\n", ""},
		{"cut", raw(`{"type":"resource","resource":{"uri":"u","text":"` + big + `"}}`),
			"<context uri=\"u\">\n" + cutRunes(big, MaxResourceBytes) + ResourceCutMarker + "\n</context>\n", ""},
		{"blank", raw(`{"type":"text","text":" \n\t"}`), "", "invalid_params"},
		{"image", raw(`{"type":"image","data":"","mimeType":"image/png"}`), "", "invalid_params"},
		{"too long", raw(`{"type":"text","text":"` + strings.Repeat("a", MaxPromptBytes+1) + `"}`), "", "content_limit"},
	} {
		got, code := promptText(tc.blocks)
		if string(code) != tc.code || (tc.code == "" && got != tc.want) {
			t.Errorf("%s: %.80q, %q; want %.80q, %q", tc.name, got, code, tc.want, tc.code)
		}
	}
}

// TestClientFS: with fs.readTextFile and fs.writeTextFile advertised, the
// file tools read the editor's buffer and write through the editor (the
// disk is left to it), always after the protections and the workspace
// guard: a credential file, a link out of the workspace and a path outside
// it are refused without a request.
func TestClientFS(t *testing.T) {
	h := newHarness(t, "auto", `{"responses":[`+
		`{"steps":[{"tool_call":{"name":"read_file","arguments":{"path":"a.txt"}}}]},`+
		`{"steps":[{"tool_call":{"name":"edit_file","arguments":{"path":"a.txt","old":"unsaved","new":"edited"}}}]},`+
		`{"steps":[{"tool_call":{"name":"write_file","arguments":{"path":"b.txt","content":"new file"}}}]},`+
		`{"steps":[{"tool_call":{"name":"read_file","arguments":{"path":".env"}}}]},`+
		`{"steps":[{"tool_call":{"name":"read_file","arguments":{"path":"link.txt"}}}]},`+
		`{"steps":[{"tool_call":{"name":"read_file","arguments":{"path":"dirlink/secret"}}}]},`+
		`{"steps":[{"tool_call":{"name":"write_file","arguments":{"path":"dirlink/new.txt","content":"x"}}}]},`+
		`{"steps":[{"tool_call":{"name":"edit_file","arguments":{"path":"link.txt","old":"s","new":"x"}}}]},`+
		`{"steps":[{"tool_call":{"name":"write_file","arguments":{"path":"../new.txt","content":"x"}}}]},`+
		`{"steps":[{"text":"done"}]}]}`)
	// The workspace guard decides before the client is asked: links out
	// of the workspace and paths outside it never reach it.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Symlink(filepath.Join(outside, "secret"), filepath.Join(h.cwd, "link.txt")) != nil || os.Symlink(outside, filepath.Join(h.cwd, "dirlink")) != nil {
		t.Fatal("symlink")
	}
	if err := os.WriteFile(filepath.Join(h.cwd, "a.txt"), []byte("on disk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.cwd, ".env"), []byte("KEY=1"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.until(h.request("initialize", `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true}}}`), nil)
	r, _ := h.until(h.request("session/new", `{"cwd":`+strconv.Quote(h.cwd)+`,"mcpServers":[]}`), nil)
	var res struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	_ = json.Unmarshal([]byte(r), &res)
	sid := res.Result.SessionID
	real, _ := filepath.EvalSymlinks(h.cwd)
	var asked []string
	resp, seen := h.until(h.request("session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"go"}]}`), func(f string) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				SessionID string `json:"sessionId"`
				Path      string `json:"path"`
				Content   string `json:"content"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(f), &m) != nil || !strings.HasPrefix(m.Method, "fs/") {
			return
		}
		if m.Params.SessionID != sid {
			t.Errorf("%s for session %q", m.Method, m.Params.SessionID)
		}
		rel, _ := filepath.Rel(real, m.Params.Path)
		asked = append(asked, m.Method+" "+rel+" "+m.Params.Content)
		result := `{}`
		if m.Method == "fs/read_text_file" {
			result = `{"content":"unsaved buffer"}`
		}
		h.line(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`)
	})
	if !strings.Contains(resp, "end_turn") {
		t.Fatalf("prompt: %s", resp)
	}
	want := []string{"fs/read_text_file a.txt ", "fs/read_text_file a.txt ", "fs/write_text_file a.txt edited buffer", "fs/write_text_file b.txt new file"}
	if strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Errorf("client requests %q, want %q", asked, want)
	}
	if !strings.Contains(strings.Join(seen, ""), `unsaved buffer`) {
		t.Error("read_file's result is not the buffer")
	}
	if b, _ := os.ReadFile(filepath.Join(h.cwd, "a.txt")); string(b) != "on disk" {
		t.Errorf("the disk was written: %q", b)
	}
	if _, err := os.Stat(filepath.Join(h.cwd, "b.txt")); err == nil {
		t.Error("write_file wrote the disk")
	}
}

// TestSlowRequestsBounded: with MaxSlowRequests in progress, one more
// slow request is refused at once with request_limit; one fewer is served.
func TestSlowRequestsBounded(t *testing.T) {
	h := newHarness(t, "ask", "")
	h.until(h.request("initialize", `{"protocolVersion":1}`), nil)
	h.a.mu.Lock()
	h.a.slow = MaxSlowRequests
	h.a.mu.Unlock()
	r, _ := h.until(h.request("session/list", `{}`), nil)
	if !strings.Contains(r, `"code":-32603`) || !strings.Contains(r, "request_limit") {
		t.Errorf("over the bound: %s", r)
	}
	h.a.mu.Lock()
	h.a.slow = MaxSlowRequests - 1
	h.a.mu.Unlock()
	if r, _ = h.until(h.request("session/list", `{}`), nil); !strings.Contains(r, `"sessions":[]`) {
		t.Errorf("within the bound: %s", r)
	}
}

// TestModelOption: a session on a catalog provider offers its models, the
// session's first; choosing one of them changes the session's model, one
// not offered is -32602; the fixture offers only its own.
func TestModelOption(t *testing.T) {
	h := newHarness(t, "ask", "")
	if err := os.WriteFile(filepath.Join(h.a.opts.Env.MCHome, "settings.toml"),
		[]byte("provider = \"anthropic\"\nmodel = \"my-model\"\n[providers.anthropic]\napi_key_env = \"ANTHROPIC_API_KEY\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sid := h.session()
	type opt struct {
		ID           string `json:"id"`
		CurrentValue string `json:"currentValue"`
		Options      []struct {
			Value string `json:"value"`
		} `json:"options"`
	}
	models := func(r string) (string, []string) {
		var res struct {
			Result struct {
				ConfigOptions []opt `json:"configOptions"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(r), &res); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		for _, o := range res.Result.ConfigOptions {
			if o.ID == "model" {
				var vs []string
				for _, v := range o.Options {
					vs = append(vs, v.Value)
				}
				return o.CurrentValue, vs
			}
		}
		t.Fatalf("no model option: %s", r)
		return "", nil
	}
	r, _ := h.until(h.request("session/set_config_option", `{"sessionId":"`+sid+`","configId":"mode","value":"ask"}`), nil)
	cur, vs := models(r)
	if cur != "my-model" || len(vs) < 2 || vs[0] != "my-model" || len(vs) > maxModels {
		t.Fatalf("models %q (current %q)", vs, cur)
	}
	r, _ = h.until(h.request("session/set_config_option", `{"sessionId":"`+sid+`","configId":"model","value":"`+vs[1]+`"}`), nil)
	if cur, _ = models(r); cur != vs[1] {
		t.Errorf("after choosing %s: current %q", vs[1], cur)
	}
	if r, _ = h.until(h.request("session/set_config_option", `{"sessionId":"`+sid+`","configId":"model","value":"not-a-model"}`), nil); !strings.Contains(r, "-32602") {
		t.Errorf("unknown model: %s", r)
	}
}

// TestNoTurnDuringReplay: a prompt for a session whose session/load is
// still replaying (held here on its first replayed frame) is refused at
// once with session_missing: no turn's update runs into the replay, which
// the load's answer then ends.
func TestNoTurnDuringReplay(t *testing.T) {
	h := newHarness(t, "auto", "")
	sid := h.session()
	if r, _ := h.until(h.request("session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"hi"}]}`), nil); !strings.Contains(r, "end_turn") {
		t.Fatalf("prompt: %s", r)
	}
	h.until(h.request("session/close", `{"sessionId":"`+sid+`"}`), nil)
	held, release := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	h.out.hold = func(f string) {
		if strings.Contains(f, `"user_message_chunk"`) && first.CompareAndSwap(false, true) {
			close(held)
			<-release
		}
	}
	load := h.request("session/load", `{"sessionId":"`+sid+`","cwd":`+strconv.Quote(h.cwd)+`,"mcpServers":[]}`)
	<-held
	prompt := h.request("session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"during"}]}`)
	select { // a prompt is admitted or refused within Line
	case f := <-h.out.frames:
		if !strings.HasPrefix(f, `{"jsonrpc":"2.0","id":`+prompt+`,"error"`) || !strings.Contains(f, `"session_missing"`) {
			t.Errorf("prompt during the replay: %s", f)
		}
	default:
		t.Error("the prompt during the replay was admitted")
	}
	close(release)
	if r, seen := h.until(load, nil); !strings.Contains(r, `"result"`) || strings.Contains(strings.Join(seen, ""), "during") {
		t.Errorf("load: %s after %q", r, seen)
	}
}

// TestCancelDuringClientWrite: session/cancel while fs/write_text_file
// waits for the editor sends $/cancel_request for it (the editor may drop
// the edit it shows for review) before the prompt answers cancelled; the
// disk is not written.
func TestCancelDuringClientWrite(t *testing.T) {
	h := newHarness(t, "auto", `{"responses":[{"steps":[{"tool_call":{"name":"write_file","arguments":{"path":"b.txt","content":"x"}}}]},{"steps":[{"text":"done"}]}]}`)
	h.until(h.request("initialize", `{"protocolVersion":1,"clientCapabilities":{"fs":{"writeTextFile":true}}}`), nil)
	r, _ := h.until(h.request("session/new", `{"cwd":`+strconv.Quote(h.cwd)+`,"mcpServers":[]}`), nil)
	var res struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	_ = json.Unmarshal([]byte(r), &res)
	sid := res.Result.SessionID
	var writeID string
	var cancelled []string
	resp, _ := h.until(h.request("session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"go"}]}`), func(f string) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		_ = json.Unmarshal([]byte(f), &m)
		switch m.Method {
		case "fs/write_text_file":
			writeID = string(m.ID)
			h.line(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sid + `"}}`)
		case "$/cancel_request":
			cancelled = append(cancelled, string(m.Params.RequestID))
		}
	})
	if !strings.Contains(resp, `"stopReason":"cancelled"`) || writeID == "" || len(cancelled) != 1 || cancelled[0] != writeID {
		t.Errorf("prompt %s; write %s; $/cancel_request for %q", resp, writeID, cancelled)
	}
	if _, err := os.Stat(filepath.Join(h.cwd, "b.txt")); err == nil {
		t.Error("the disk was written")
	}
}

package audit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/stages/wire"
)

// hangGuard bounds every wait. It turns a hang into a failure; no test
// asserts how fast anything happens.
const hangGuard = 60 * time.Second

// allCaps is every capability of version 1 except initialize.
var allCaps = []string{"status", "shutdown", "session.create", "session.open", "history.page", "turn.start", "turn.cancel", "approval.answer"}

// idGrammar is the spec's ID grammar: 1-64 ASCII bytes of [A-Za-z0-9._-].
var idGrammar = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// uuidRE is a canonical lower-case UUID.
var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func ctxGuard(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	return ctx
}

// step is one fixture script step (DESIGN.md).
type step map[string]any

func text(s string) step { return step{"text": s} }
func sleepMs(n int) step { return step{"sleep_ms": n} }
func tool(name string, args map[string]any) step {
	return step{"tool_call": map[string]any{"name": name, "arguments": args}}
}
func shell(command string) step { return tool("shell", map[string]any{"command": command}) }

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// fixtureWorkspace makes a workspace whose global settings select the
// fixture provider with the given script responses (none: echo), the
// approval mode (none: default) and extra TOML appended.
func fixtureWorkspace(t testing.TB, approval, extra string, responses ...[]step) *clienttest.Workspace {
	t.Helper()
	ws := clienttest.NewWorkspace(t, "")
	settings := clienttest.FixtureSettings
	if len(responses) > 0 {
		type resp struct {
			Steps []step `json:"steps"`
		}
		var script struct {
			Responses []resp `json:"responses"`
		}
		for _, r := range responses {
			script.Responses = append(script.Responses, resp{Steps: r})
		}
		b, err := json.Marshal(script)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(filepath.Dir(ws.Home), "script.json")
		ws.WriteFile(t, path, string(b))
		settings += "\n[providers.fixture]\nscript = " + quote(path) + "\n"
	}
	if approval != "" {
		settings += "\n[tools]\napproval = " + quote(approval) + "\n"
	}
	settings += extra
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), settings)
	return ws
}

// child is one running magi-code serve --stdio process.
type child struct {
	t  testing.TB
	ws *clienttest.Workspace
	c  *client.Client
}

// spawn starts a child in ws without initializing it.
func spawn(t testing.TB, ws *clienttest.Workspace, opts client.Options) *child {
	t.Helper()
	return &child{t: t, ws: ws, c: ws.Start(t, opts)}
}

// start starts a child and initializes it, requiring success.
func start(t testing.TB, ws *clienttest.Workspace, opts client.Options) *child {
	t.Helper()
	ch := spawn(t, ws, opts)
	ch.result("initialize", map[string]any{"required_capabilities": allCaps}, nil)
	return ch
}

func (ch *child) call(method string, params any) *client.Response {
	ch.t.Helper()
	r, err := ch.c.Call(ctxGuard(ch.t), method, params)
	if err != nil {
		ch.t.Fatalf("%s: %v", method, err)
	}
	return r
}

func (ch *child) result(method string, params, v any) *client.Response {
	ch.t.Helper()
	r := ch.call(method, params)
	if r.Error != nil {
		ch.t.Fatalf("%s(%v): error %s", method, params, r.Error.Code)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result, v); err != nil {
			ch.t.Fatalf("%s: result %s: %v", method, r.Result, err)
		}
	}
	return r
}

// wantError calls and requires an error response with code.
func (ch *child) wantError(method string, params any, code string) {
	ch.t.Helper()
	r := ch.call(method, params)
	if r.Error == nil || r.Error.Code != code {
		ch.t.Errorf("%s(%v) = %s; want error %s", method, params, r.Raw, code)
	}
}

type sessionResult struct {
	SessionID string   `json:"session_id"`
	Durable   bool     `json:"durable"`
	Revision  string   `json:"revision"`
	Notices   []string `json:"notices"`
}

func (ch *child) create() sessionResult {
	ch.t.Helper()
	var s sessionResult
	ch.result("session.create", nil, &s)
	return s
}

func (ch *child) open(id string) sessionResult {
	ch.t.Helper()
	var s sessionResult
	ch.result("session.open", map[string]string{"session_id": id}, &s)
	return s
}

type statusResult struct {
	State     string  `json:"state"`
	Readiness string  `json:"readiness"`
	Provider  *string `json:"provider"`
	Model     *string `json:"model"`
	ContextID *string `json:"context_id"`
	SessionID *string `json:"session_id"`
	RunID     *string `json:"run_id"`
}

func (ch *child) status() statusResult {
	ch.t.Helper()
	var s statusResult
	ch.result("status", nil, &s)
	return s
}

func deref(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// startTurn sends turn.start and returns the run ID.
func (ch *child) startTurn(sessionID, prompt string) string {
	ch.t.Helper()
	var res struct {
		RunID    string `json:"run_id"`
		Accepted bool   `json:"accepted"`
	}
	r := ch.result("turn.start", map[string]string{"session_id": sessionID, "prompt": prompt}, &res)
	if !res.Accepted || res.RunID == "" {
		ch.t.Fatalf("turn.start: result %s", r.Result)
	}
	return res.RunID
}

type runFinished struct {
	Outcome     string  `json:"outcome"`
	Persistence string  `json:"persistence"`
	Revision    *string `json:"revision"`
	ErrorCode   *string `json:"error_code"`
}

type textEvent struct {
	MessageID string `json:"message_id"`
	Part      int    `json:"part"`
	Text      string `json:"text"`
	LastPart  bool   `json:"last_part"`
	Partial   bool   `json:"partial"`
}

// run is one collected run.
type run struct {
	events   []client.Event
	finished runFinished
}

// reply joins the reconcile parts of every message in order.
func (r run) reply() (text string, partial bool) {
	for _, ev := range r.events {
		if ev.Name != wire.EventMessageReconcile {
			continue
		}
		var te textEvent
		_ = ev.Decode(&te)
		text += te.Text
		partial = partial || te.Partial
	}
	return text, partial
}

func (r run) count(name string) int {
	n := 0
	for _, ev := range r.events {
		if ev.Name == name {
			n++
		}
	}
	return n
}

// collect receives the run's events up to run.finished.
func (ch *child) collect(runID string) run {
	ch.t.Helper()
	evs, err := ch.c.CollectRun(ctxGuard(ch.t), runID)
	if err != nil {
		ch.t.Fatalf("collecting run %s: %v (after %d events)", runID, err, len(evs))
	}
	r := run{events: evs}
	if err := evs[len(evs)-1].Decode(&r.finished); err != nil {
		ch.t.Fatal(err)
	}
	return r
}

func (ch *child) turn(sessionID, prompt string) run {
	ch.t.Helper()
	return ch.collect(ch.startTurn(sessionID, prompt))
}

// shutdown sends shutdown and requires exit 0 with empty stderr.
func (ch *child) shutdown() {
	ch.t.Helper()
	r := ch.call("shutdown", nil)
	if r.Error != nil || string(r.Result) != `{"state":"stopping"}` {
		ch.t.Fatalf("shutdown: %s", r.Raw)
	}
	ch.wantExit(0)
}

// wantExit waits for the child (under the hang guard) and requires the
// exit code, empty stderr and a protocol-clean output.
func (ch *child) wantExit(want int) {
	ch.t.Helper()
	type res struct {
		code   int
		stderr []byte
		err    error
	}
	done := make(chan res, 1)
	go func() {
		code, stderr, err := ch.c.Wait()
		done <- res{code, stderr, err}
	}()
	var r res
	select {
	case r = <-done:
	case <-time.After(hangGuard):
		ch.c.Kill()
		<-done
		ch.t.Fatalf("child did not exit within %v", hangGuard)
	}
	if r.code != want || len(r.stderr) != 0 || r.err != nil {
		ch.t.Errorf("exit %d, stderr %q, output error %v; want exit %d, no stderr", r.code, r.stderr, r.err, want)
	}
}

type entry struct {
	MessageID string `json:"message_id"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	Partial   bool   `json:"partial"`
	Part      int    `json:"part"`
	LastPart  bool   `json:"last_part"`
}

type page struct {
	SessionID  string  `json:"session_id"`
	Revision   string  `json:"revision"`
	Entries    []entry `json:"entries"`
	NextCursor *string `json:"next_cursor"`
	Complete   bool    `json:"complete"`
}

// history pages through the whole projection, omitting the cursor on the
// first page (the spec allows it), and checks the page bounds and the
// grammar of cursors and message IDs.
func (ch *child) history(sessionID, revision string) (entries []entry, complete bool, pages int) {
	ch.t.Helper()
	params := map[string]any{"session_id": sessionID, "revision": revision}
	for {
		var p page
		r := ch.result("history.page", params, &p)
		pages++
		if len(r.Result) > wire.HistoryPageBytes || len(p.Entries) > wire.HistoryPageEntries {
			ch.t.Fatalf("page %d: %d bytes, %d entries", pages, len(r.Result), len(p.Entries))
		}
		for _, e := range p.Entries {
			if !idGrammar.MatchString(e.MessageID) {
				ch.t.Errorf("message_id %q outside the ID grammar", e.MessageID)
			}
		}
		entries = append(entries, p.Entries...)
		if p.NextCursor == nil {
			return entries, p.Complete, pages
		}
		if !idGrammar.MatchString(*p.NextCursor) {
			ch.t.Errorf("cursor %q outside the ID grammar", *p.NextCursor)
		}
		if p.Complete {
			ch.t.Errorf("page %d: complete=true with a next cursor", pages)
		}
		if pages > 1000 {
			ch.t.Fatal("endless paging")
		}
		params["cursor"] = *p.NextCursor
	}
}

func kinds(es []entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Kind)
	}
	return out
}

func sessionFile(home, id string) string {
	return filepath.Join(home, "sessions", id+".jsonl")
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// durable runs one turn in a fresh child of ws and shuts it down; it
// returns the durable session ID.
func durable(t testing.TB, ws *clienttest.Workspace, prompt string) string {
	t.Helper()
	ch := start(t, ws, client.Options{})
	s := ch.create()
	r := ch.turn(s.SessionID, prompt)
	if r.finished.Persistence != "durable" {
		t.Fatalf("run.finished %+v", r.finished)
	}
	ch.shutdown()
	return s.SessionID
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

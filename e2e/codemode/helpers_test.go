package codemode

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/stages/wire"
)

// hangGuard bounds every wait of a test. It is a guard against hangs, not a
// timing assertion.
const hangGuard = 2 * time.Minute

// child is one running magi-code serve --stdio process, initialized.
type child struct {
	t  testing.TB
	ws *clienttest.Workspace
	c  *client.Client
}

// step is one fixture script step (DESIGN.md).
type step map[string]any

func text(s string) step            { return step{"text": s} }
func sleepMs(n int) step            { return step{"sleep_ms": n} }
func response(steps ...step) []step { return steps }

// call is a tool_call step.
func call(name string, args map[string]any) step {
	return step{"tool_call": map[string]any{"name": name, "arguments": args}}
}

// runCode is a tool_call step of run_code with the program code.
func runCode(code string) step { return call("run_code", map[string]any{"code": code}) }

// newWorkspace makes a workspace whose global settings select the fixture
// provider with the given script responses (none: echo), plus top (top-level
// keys such as context_window) and tables (TOML tables such as
// [tools.code_mode]).
func newWorkspace(t testing.TB, top, tables string, responses ...[]step) *clienttest.Workspace {
	t.Helper()
	ws := clienttest.NewWorkspace(t, "")
	settings := clienttest.FixtureSettings + top + "\n"
	if len(responses) > 0 {
		type resp struct {
			Steps []step `json:"steps"`
		}
		script := struct {
			Responses []resp `json:"responses"`
		}{}
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
	settings += "\n" + tables + "\n"
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), settings)
	return ws
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

var allCapabilities = []string{"status", "shutdown", "session.create", "session.open", "history.page", "turn.start", "turn.cancel", "approval.answer"}

// start starts a child in ws and initializes it.
func start(t testing.TB, ws *clienttest.Workspace, opts client.Options) *child {
	t.Helper()
	ch := &child{t: t, ws: ws, c: ws.Start(t, opts)}
	r := ch.call("initialize", map[string]any{"required_capabilities": allCapabilities})
	if r.Error != nil {
		t.Fatalf("initialize: error %s", r.Error.Code)
	}
	return ch
}

func ctxGuard(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	t.Cleanup(cancel)
	return ctx
}

// call sends one request and returns its response (result or error).
func (ch *child) call(method string, params any) *client.Response {
	ch.t.Helper()
	r, err := ch.c.Call(ctxGuard(ch.t), method, params)
	if err != nil {
		ch.t.Fatalf("%s: %v", method, err)
	}
	return r
}

// result calls and decodes the result into v; an error response fails.
func (ch *child) result(method string, params, v any) *client.Response {
	ch.t.Helper()
	r := ch.call(method, params)
	if r.Error != nil {
		ch.t.Fatalf("%s: error %s", method, r.Error.Code)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result, v); err != nil {
			ch.t.Fatalf("%s: result %s: %v", method, r.Result, err)
		}
	}
	return r
}

type sessionResult struct {
	SessionID string `json:"session_id"`
	Revision  string `json:"revision"`
}

func (ch *child) create() sessionResult {
	ch.t.Helper()
	var s sessionResult
	ch.result("session.create", nil, &s)
	return s
}

// startTurn sends turn.start and returns the run ID and the admission
// response.
func (ch *child) startTurn(sessionID, prompt string) (string, *client.Response) {
	ch.t.Helper()
	var res struct {
		RunID    string `json:"run_id"`
		Accepted bool   `json:"accepted"`
	}
	r := ch.result("turn.start", map[string]string{"session_id": sessionID, "prompt": prompt}, &res)
	if !res.Accepted || res.RunID == "" {
		ch.t.Fatalf("turn.start: result %s", r.Result)
	}
	return res.RunID, r
}

// turn runs one whole turn.
func (ch *child) turn(sessionID, prompt string) run {
	ch.t.Helper()
	runID, adm := ch.startTurn(sessionID, prompt)
	return ch.finish(sessionID, runID, adm, nil)
}

// nextEvent receives one event, under the hang guard.
func (ch *child) nextEvent() client.Event {
	ch.t.Helper()
	ev, err := ch.c.WaitEvent(ctxGuard(ch.t), func(client.Event) bool { return true })
	if err != nil {
		ch.t.Fatalf("waiting for an event: %v", err)
	}
	return ev
}

// until receives events into *evs until pred accepts one, and returns it.
// run.finished before that fails the test.
func (ch *child) until(evs *[]client.Event, what string, pred func(client.Event) bool) client.Event {
	ch.t.Helper()
	for {
		ev := ch.nextEvent()
		*evs = append(*evs, ev)
		if pred(ev) {
			return ev
		}
		if ev.Name == wire.EventRunFinished {
			ch.t.Fatalf("run.finished %s while waiting for %s", ev.Data, what)
		}
	}
}

// named accepts events of one name.
func named(name string) func(client.Event) bool {
	return func(ev client.Event) bool { return ev.Name == name }
}

// activityOf accepts activity events of kind/name/state ("" matches any).
func activityOf(kind, name, state string) func(client.Event) bool {
	return func(ev client.Event) bool {
		if ev.Name != wire.EventActivity {
			return false
		}
		var a activityEvent
		if ev.Decode(&a) != nil {
			return false
		}
		return (kind == "" || a.Kind == kind) && (name == "" || a.Name == name) && (state == "" || a.State == state)
	}
}

// finish receives the rest of the run and checks it whole.
func (ch *child) finish(sessionID, runID string, adm *client.Response, evs []client.Event) run {
	ch.t.Helper()
	rest, err := ch.c.CollectRun(ctxGuard(ch.t), runID)
	if err != nil {
		ch.t.Fatalf("collecting run: %v (after %d events)", err, len(evs)+len(rest))
	}
	return checkRun(ch.t, sessionID, runID, adm, append(evs, rest...))
}

func (ch *child) cancel(sessionID, runID string) *client.Response {
	ch.t.Helper()
	return ch.call("turn.cancel", map[string]string{"session_id": sessionID, "run_id": runID})
}

func (ch *child) answer(sessionID, runID, approvalID string, allow bool) {
	ch.t.Helper()
	r := ch.call("approval.answer", map[string]any{"session_id": sessionID, "run_id": runID, "approval_id": approvalID, "allow": allow})
	if r.Error != nil {
		ch.t.Fatalf("approval.answer: error %s", r.Error.Code)
	}
}

// shutdown shuts the child down and waits for exit 0 with empty stderr.
func (ch *child) shutdown() {
	ch.t.Helper()
	ch.result("shutdown", nil, nil)
	done := make(chan struct{})
	var code int
	var stderr []byte
	var err error
	go func() {
		defer close(done)
		code, stderr, err = ch.c.Wait()
	}()
	select {
	case <-done:
	case <-time.After(hangGuard):
		ch.c.Kill()
		<-done
		ch.t.Fatal("child did not exit after shutdown")
	}
	if code != 0 || len(stderr) != 0 || err != nil {
		ch.t.Fatalf("after shutdown: exit %d, stderr %q, err %v", code, stderr, err)
	}
}

// run is the checked event sequence of one run.
type run struct {
	id       string
	events   []client.Event
	finished runFinished
	messages []message
}

type message struct {
	id      string
	text    string
	partial bool
}

// reply is the concatenation of the reconciled assistant messages.
func (r run) reply() string {
	var b strings.Builder
	for _, m := range r.messages {
		b.WriteString(m.text)
	}
	return b.String()
}

// activities returns the run's activity events in order.
func (r run) activities(t testing.TB) []activityEvent {
	t.Helper()
	var out []activityEvent
	for _, ev := range r.events {
		if ev.Name != wire.EventActivity {
			continue
		}
		var a activityEvent
		if err := ev.Decode(&a); err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// outcome is the run's terminal data, for failure messages.
func (r run) outcome() string { return string(r.events[len(r.events)-1].Data) }

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

type activityEvent struct {
	ActivityID string `json:"activity_id"`
	Kind       string `json:"kind"`
	State      string `json:"state"`
	Name       string `json:"name"`
	Summary    string `json:"summary"`
}

type approvalRequested struct {
	ApprovalID  string `json:"approval_id"`
	Summary     string `json:"summary"`
	ExpiresInMs int64  `json:"expires_in_ms"`
}

// checkRun checks the spec's order rules on one run's events (admission
// first, run.finished once and last, IDs on every event, text parts valid
// and contiguous) and joins the reconciled messages.
func checkRun(t testing.TB, sessionID, runID string, admission *client.Response, evs []client.Event) run {
	t.Helper()
	r := run{id: runID, events: evs}
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	for i, ev := range evs {
		if ev.SessionID != sessionID || ev.RunID != runID {
			t.Fatalf("event %d %s: session %q run %q; want %q %q", i, ev.Name, ev.SessionID, ev.RunID, sessionID, runID)
		}
		if admission != nil && ev.Seq <= admission.Seq {
			t.Fatalf("event %s seq %d precedes turn.start response seq %d", ev.Name, ev.Seq, admission.Seq)
		}
		if ev.Name == wire.EventRunFinished && i != len(evs)-1 {
			t.Fatalf("run.finished at %d of %d events", i, len(evs))
		}
	}
	last := evs[len(evs)-1]
	if last.Name != wire.EventRunFinished {
		t.Fatalf("last event %s", last.Name)
	}
	if err := last.Decode(&r.finished); err != nil {
		t.Fatal(err)
	}
	recon := map[string]int{}
	for _, ev := range evs {
		if ev.Name != wire.EventMessageReconcile {
			continue
		}
		var te textEvent
		if err := ev.Decode(&te); err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(te.Text) || len(te.Text) > wire.LiveChunkBytes {
			t.Fatalf("reconcile part %d: %d bytes", te.Part, len(te.Text))
		}
		want, seen := recon[te.MessageID]
		if want < 0 || te.Part != want {
			t.Fatalf("reconcile of %s: part %d, want %d", te.MessageID, te.Part, want)
		}
		if !seen {
			r.messages = append(r.messages, message{id: te.MessageID})
		}
		m := &r.messages[len(r.messages)-1]
		m.text += te.Text
		m.partial = te.Partial
		recon[te.MessageID] = te.Part + 1
		if te.LastPart {
			recon[te.MessageID] = -1
		}
	}
	for id, next := range recon {
		if next >= 0 {
			t.Fatalf("reconcile of %s ended without last_part", id)
		}
	}
	for _, a := range r.activities(t) {
		if len(a.Summary) > wire.SummaryBytes || !utf8.ValidString(a.Summary) {
			t.Fatalf("activity summary of %d bytes", len(a.Summary))
		}
	}
	return r
}

// entry is one history.page entry.
type entry struct {
	MessageID string `json:"message_id"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	Partial   bool   `json:"partial"`
	Part      int    `json:"part"`
	LastPart  bool   `json:"last_part"`
}

type page struct {
	Entries    []entry `json:"entries"`
	NextCursor *string `json:"next_cursor"`
	Complete   bool    `json:"complete"`
}

// history pages through the whole projection at revision.
func (ch *child) history(sessionID, revision string) (entries []entry, complete bool) {
	ch.t.Helper()
	var cursor *string
	for pages := 0; ; pages++ {
		var p page
		ch.result("history.page", map[string]any{"session_id": sessionID, "revision": revision, "cursor": cursor}, &p)
		entries = append(entries, p.Entries...)
		if p.NextCursor == nil {
			return entries, p.Complete
		}
		if pages > 10_000 {
			ch.t.Fatal("endless paging")
		}
		cursor = p.NextCursor
	}
}

// kinds lists the kinds of the entries, one per message (first part).
func kinds(entries []entry) []string {
	var out []string
	for _, e := range entries {
		if e.Part == 0 {
			out = append(out, e.Kind)
		}
	}
	return out
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// mustRead returns a file's content, failing the test when it cannot.
func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", filepath.Base(path), err)
	}
	return string(b)
}

// mustJSON marshals v.
func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

package runner

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
// timing assertion: nothing here should take more than a few seconds.
const hangGuard = 2 * time.Minute

// step is one fixture script step (DESIGN.md).
type step map[string]any

func text(s string) step { return step{"text": s} }

func toolCall(name string, args map[string]any) step {
	if args == nil {
		args = map[string]any{}
	}
	return step{"tool_call": map[string]any{"name": name, "arguments": args}}
}

func shell(command string) step { return toolCall("shell", map[string]any{"command": command}) }

// script writes a fixture script of the given responses into dir and
// returns the settings lines that select it.
func script(t testing.TB, dir string, responses ...[]step) string {
	t.Helper()
	type resp struct {
		Steps []step `json:"steps"`
	}
	var s struct {
		Responses []resp `json:"responses"`
	}
	for _, r := range responses {
		s.Responses = append(s.Responses, resp{Steps: r})
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "script.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return clienttest.FixtureSettings + "\n[providers.fixture]\nscript = " + quote(path) + "\n"
}

// quote is a TOML basic string (JSON escaping is a subset of TOML's).
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// mcpServer is the settings table of the test MCP server under name, with
// extra environment entries for it.
func mcpServer(name string, env map[string]string) string {
	var b strings.Builder
	b.WriteString("\n[mcp_servers." + name + "]\ncommand = " + quote(mcpServerBin) + "\n")
	if len(env) > 0 {
		b.WriteString("env = {")
		first := true
		for k, v := range env {
			if !first {
				b.WriteString(", ")
			}
			first = false
			b.WriteString(k + " = " + quote(v))
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// hook is one [[hooks]] entry.
func hook(event, matcher, command string) string {
	return "\n[[hooks]]\nevent = " + quote(event) + "\nmatcher = " + quote(matcher) + "\ncommand = " + quote(command) + "\n"
}

// child is one running, initialized magi-code serve --stdio process.
type child struct {
	t  testing.TB
	ws *clienttest.Workspace
	c  *client.Client
}

// newChild makes a workspace with the given global settings and starts an
// initialized child in it.
func newChild(t testing.TB, settings string, opts client.Options) *child {
	t.Helper()
	ws := clienttest.NewWorkspace(t, settings)
	return startChild(t, ws, opts)
}

func startChild(t testing.TB, ws *clienttest.Workspace, opts client.Options) *child {
	t.Helper()
	ch := &child{t: t, ws: ws, c: ws.Start(t, opts)}
	r := ch.call("initialize", map[string]any{"required_capabilities": []string{
		"status", "shutdown", "session.create", "session.open", "history.page", "turn.start", "turn.cancel", "approval.answer"}})
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

func (ch *child) call(method string, params any) *client.Response {
	ch.t.Helper()
	r, err := ch.c.Call(ctxGuard(ch.t), method, params)
	if err != nil {
		ch.t.Fatalf("%s: %v", method, err)
	}
	return r
}

// result calls and decodes the result into v; an error response fails.
func (ch *child) result(method string, params, v any) {
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
}

// afterBusy is result for a request sent right after a run.finished, which
// must never be busy (see TestIdleAfterRunFinished).
func (ch *child) afterBusy(method string, params, v any) {
	ch.t.Helper()
	r := ch.call(method, params)
	if r.Error != nil {
		ch.t.Fatalf("%s: error %s", method, r.Error.Code)
	}
	if err := json.Unmarshal(r.Result, v); err != nil {
		ch.t.Fatalf("%s: result %s: %v", method, r.Result, err)
	}
}

// waitIdle polls status until the child reports idle.
func waitIdle(ch *child) {
	ch.t.Helper()
	waitFor(ch.t, "status idle", func() bool {
		var s struct {
			State string `json:"state"`
		}
		ch.result("status", nil, &s)
		return s.State == "idle"
	})
}

// create attaches a new session and returns its ID.
func (ch *child) create() string {
	ch.t.Helper()
	var s struct {
		SessionID string `json:"session_id"`
	}
	ch.result("session.create", nil, &s)
	return s.SessionID
}

func (ch *child) startTurn(sessionID, prompt string) string {
	ch.t.Helper()
	var res struct {
		RunID    string `json:"run_id"`
		Accepted bool   `json:"accepted"`
	}
	ch.afterBusy("turn.start", map[string]string{"session_id": sessionID, "prompt": prompt}, &res)
	if !res.Accepted || res.RunID == "" {
		ch.t.Fatalf("turn.start: %+v", res)
	}
	return res.RunID
}

// until receives events of the run, appending them to evs, until one named
// name arrives, and returns it.
func (ch *child) until(evs *[]client.Event, runID, name string) client.Event {
	ch.t.Helper()
	ctx := ctxGuard(ch.t)
	for {
		select {
		case ev, ok := <-ch.c.Events():
			if !ok {
				ch.t.Fatalf("output ended waiting for %s: %v", name, ch.c.Err())
			}
			if ev.RunID != runID {
				ch.t.Fatalf("event %s of run %q while waiting in run %q", ev.Name, ev.RunID, runID)
			}
			*evs = append(*evs, ev)
			if ev.Name == name {
				return ev
			}
			if ev.Name == wire.EventRunFinished {
				ch.t.Fatalf("run finished while waiting for %s: %s", name, ev.Data)
			}
		case <-ctx.Done():
			ch.t.Fatalf("no %s: %v", name, ctx.Err())
		}
	}
}

// finish collects the rest of the run after evs and checks it.
func (ch *child) finish(sessionID, runID string, evs []client.Event) run {
	ch.t.Helper()
	rest, err := ch.c.CollectRun(ctxGuard(ch.t), runID)
	if err != nil {
		ch.t.Fatalf("collecting run %s: %v", runID, err)
	}
	return checkRun(ch.t, sessionID, runID, append(evs, rest...))
}

// turn runs one whole turn.
func (ch *child) turn(sessionID, prompt string) run {
	ch.t.Helper()
	runID := ch.startTurn(sessionID, prompt)
	return ch.finish(sessionID, runID, nil)
}

func (ch *child) answer(sessionID, runID, approvalID string, allow bool) {
	ch.t.Helper()
	r := ch.call("approval.answer", map[string]any{"session_id": sessionID, "run_id": runID, "approval_id": approvalID, "allow": allow})
	if r.Error != nil || string(r.Result) != `{"recorded":true}` {
		ch.t.Fatalf("approval.answer: %s %v", r.Result, r.Error)
	}
}

// shutdown shuts the child down and checks exit 0 with nothing on stderr.
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
	events   []client.Event
	finished runFinished
	messages []message // reconciled assistant messages, in order
}

type message struct {
	text    string
	partial bool
}

func (r run) reply() string {
	var b strings.Builder
	for _, m := range r.messages {
		b.WriteString(m.text)
	}
	return b.String()
}

// activities returns the run's activity events, decoded.
func (r run) activities() []activityEvent {
	var out []activityEvent
	for _, ev := range r.events {
		if ev.Name == wire.EventActivity {
			var a activityEvent
			_ = ev.Decode(&a)
			out = append(out, a)
		}
	}
	return out
}

// diagnostics returns the codes of the run's diagnostics.
func (r run) diagnostics() []string {
	var out []string
	for _, ev := range r.events {
		if ev.Name == wire.EventDiagnostic {
			var d struct {
				Code string `json:"code"`
			}
			_ = ev.Decode(&d)
			out = append(out, d.Code)
		}
	}
	return out
}

func (r run) wantOutcome(t testing.TB, outcome, errorCode string) {
	t.Helper()
	got := ""
	if r.finished.ErrorCode != nil {
		got = *r.finished.ErrorCode
	}
	if r.finished.Outcome != outcome || got != errorCode {
		t.Fatalf("run.finished %s; want outcome %s, error_code %q", r.events[len(r.events)-1].Data, outcome, errorCode)
	}
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

type activityEvent struct {
	ActivityID string `json:"activity_id"`
	Kind       string `json:"kind"`
	State      string `json:"state"`
	Name       string `json:"name"`
	Summary    string `json:"summary"`
}

// checkRun checks the order rules the tests rely on: every event carries
// the session and run IDs, input.persisted first when present, run.finished
// once and last, reconcile parts contiguous per message up to last_part,
// and every activity that started ends (completed or failed) unless the
// run did not complete.
func checkRun(t testing.TB, sessionID, runID string, evs []client.Event) run {
	t.Helper()
	r := run{events: evs}
	for i, ev := range evs {
		if ev.SessionID != sessionID || ev.RunID != runID {
			t.Fatalf("event %d %s: session %q run %q", i, ev.Name, ev.SessionID, ev.RunID)
		}
		if ev.Name == wire.EventRunFinished && i != len(evs)-1 {
			t.Fatalf("run.finished at %d of %d events", i, len(evs))
		}
		if ev.Name == wire.EventInputPersisted && i != 0 {
			t.Fatalf("input.persisted at %d", i)
		}
	}
	last := evs[len(evs)-1]
	if last.Name != wire.EventRunFinished {
		t.Fatalf("last event %s", last.Name)
	}
	if err := last.Decode(&r.finished); err != nil {
		t.Fatal(err)
	}
	next := map[string]int{} // next reconcile part; -1 once complete
	for _, ev := range evs {
		if ev.Name != wire.EventMessageReconcile {
			continue
		}
		var te textEvent
		if err := ev.Decode(&te); err != nil {
			t.Fatal(err)
		}
		want, seen := next[te.MessageID]
		if want < 0 || te.Part != want || !utf8.ValidString(te.Text) {
			t.Fatalf("reconcile of %s: part %d, want %d", te.MessageID, te.Part, want)
		}
		if !seen {
			r.messages = append(r.messages, message{})
		}
		m := &r.messages[len(r.messages)-1]
		m.text += te.Text
		m.partial = te.Partial
		next[te.MessageID] = te.Part + 1
		if te.LastPart {
			next[te.MessageID] = -1
		}
	}
	for id, n := range next {
		if n >= 0 {
			t.Fatalf("reconcile of %s ended without last_part", id)
		}
	}
	return r
}

type entry struct {
	MessageID string `json:"message_id"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	Partial   bool   `json:"partial"`
	Part      int    `json:"part"`
	LastPart  bool   `json:"last_part"`
}

// history pages through the whole projection at the run's terminal
// revision and returns its entries.
func (ch *child) history(sessionID string, r run) []entry {
	ch.t.Helper()
	if r.finished.Revision == nil {
		ch.t.Fatalf("run.finished without revision: %s", r.events[len(r.events)-1].Data)
	}
	var out []entry
	var cursor *string
	for pages := 0; ; pages++ {
		var p struct {
			Entries    []entry `json:"entries"`
			NextCursor *string `json:"next_cursor"`
		}
		ch.afterBusy("history.page", map[string]any{"session_id": sessionID, "revision": *r.finished.Revision, "cursor": cursor}, &p)
		out = append(out, p.Entries...)
		if p.NextCursor == nil {
			return out
		}
		if pages > 1000 {
			ch.t.Fatal("endless paging")
		}
		cursor = p.NextCursor
	}
}

// kinds returns the kinds of the entries that start a message.
func kinds(entries []entry) []string {
	var out []string
	for _, e := range entries {
		if e.Part == 0 {
			out = append(out, e.Kind)
		}
	}
	return out
}

// waitFor polls cond until it holds, failing after the hang guard. Used for
// effects outside the protocol (files a server writes).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

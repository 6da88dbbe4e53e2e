package mission

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/magi-code/magi-code/client"
)

// msgs runs cmd and every command of the batches and sequences it returns,
// and returns the other messages. Only for commands that do not wait (no
// nextEvent, no tick).
func msgs(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeFor[tea.Cmd]() {
		var out []tea.Msg
		for i := range v.Len() {
			out = append(out, msgs(v.Index(i).Interface().(tea.Cmd))...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// restartMsg is the restartedMsg among the messages of cmd.
func restartMsg(t *testing.T, cmd tea.Cmd) restartedMsg {
	t.Helper()
	for _, msg := range msgs(cmd) {
		if r, ok := msg.(restartedMsg); ok {
			return r
		}
	}
	t.Fatal("no restart")
	return restartedMsg{}
}

func result(gen int, method, js string) callMsg {
	return callMsg{gen: gen, method: method, resp: &client.Response{Result: json.RawMessage(js)}}
}

func failure(gen int, method, code string) callMsg {
	return callMsg{gen: gen, method: method, resp: &client.Response{Error: &client.Error{Code: code}}}
}

const readyStatus = `{"status":{"readiness":"ready","provider":"fixture","model":"fixture-model"}}`

func typeLine(m *Model, s string) tea.Cmd {
	for _, r := range s {
		key(m, string(r))
	}
	return key(m, "enter")
}

func (f *fakeBackend) last() (string, map[string]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return "", nil
	}
	p, _ := f.params[len(f.params)-1].(map[string]string)
	return f.calls[len(f.calls)-1], p
}

// A key stored with /login is used from the next turn: the backend
// restarts, initializes again, and the same (durable) session is reopened
// without replaying what the screen already shows. What the ended backend
// still delivers is ignored.
func TestLoginRestartsTheBackendAndReopens(t *testing.T) {
	next := &fakeBackend{events: make(chan client.Event)}
	restarts := 0
	m, _, _ := started(t, Options{
		Login:   func(string, string) error { return nil },
		Restart: func() (Backend, error) { restarts++; return next, nil },
	})
	send(m, "input.persisted", map[string]any{"message_id": "u1", "durable": true, "revision": "r2"})
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r3", "error_code": nil})
	typeLine(m, "/login openai")
	cmd := typeLine(m, "sk-key-0123456789")
	if m.ready || m.readiness != "restarting" {
		t.Fatalf("during the restart: ready %v readiness %q", m.ready, m.readiness)
	}
	if v := view(m); !strings.Contains(v, "restarting") {
		t.Fatalf("the status bar does not show the restart:\n%s", v)
	}
	r := restartMsg(t, cmd)
	if restarts != 1 || r.backend != next {
		t.Fatalf("restarts %d", restarts)
	}
	// Late messages of the ended backend change nothing.
	m.Update(eventsEnded{gen: 0})
	m.Update(failure(0, "initialize", "startup_failed"))
	if m.quitting || m.readiness != "restarting" {
		t.Fatalf("a message of the ended backend was handled: quitting %v readiness %q", m.quitting, m.readiness)
	}
	m.Update(r)
	_, cmd = m.Update(result(m.gen, "initialize", readyStatus))
	msgs(cmd)
	if method, p := next.last(); method != "session.open" || p["session_id"] != sess {
		t.Fatalf("after initialize the new backend got %s %v; want session.open of %s", method, p, sess)
	}
	before := len(m.Printed)
	_, cmd = m.Update(result(m.gen, "session.open", `{"session_id":"`+sess+`","revision":"r4","durable":true,"notices":[]}`))
	msgs(cmd)
	if method, _ := next.last(); method != "status" {
		t.Fatalf("after the reopen the new backend got %s; want status", method)
	}
	for _, p := range m.Printed[before:] {
		if strings.Contains(p, "resumed session") {
			t.Fatalf("the conversation on screen was replayed again: %q", p)
		}
	}
	m.Update(result(m.gen, "status", `{"state":"idle","readiness":"ready","provider":"openai","model":"gpt-x","context_id":"c","session_id":"`+sess+`","run_id":null}`))
	if !m.ready || !strings.Contains(view(m), "openai · gpt-x") || !strings.Contains(printed(m), "backend restarted: openai · gpt-x · ready") {
		t.Fatalf("readiness not shown again:\n%s\n%s", view(m), printed(m))
	}
	if cmd := typeLine(m, "next question"); cmd == nil || !m.running {
		t.Fatal("no turn after the restart")
	}
}

// /model while a turn runs restarts once it has ended; a session that has
// no turn on disk is replaced by a new one; the model the session keeps is
// said.
func TestModelRestartsAfterTheTurn(t *testing.T) {
	next := &fakeBackend{events: make(chan client.Event)}
	restarts := 0
	var stored [2]string
	m, old, _ := started(t, Options{
		SetModel: func(p, mo string) error { stored = [2]string{p, mo}; return nil },
		Restart:  func() (Backend, error) { restarts++; return next, nil },
	})
	if cmd := typeLine(m, "/model fixture bigger"); cmd != nil {
		for _, msg := range msgs(cmd) {
			if _, ok := msg.(restartedMsg); ok {
				t.Fatal("restarted during a turn")
			}
		}
	}
	if stored != [2]string{"fixture", "bigger"} || !m.restartPending {
		t.Fatalf("stored %v, pending %v", stored, m.restartPending)
	}
	// The ended backend's events end as the restart ends it: the end is
	// not taken for the new backend's (which once quit with 1).
	close(old.events)
	_, cmd := m.Update(eventMsg{gen: 0, ev: client.Event{Name: "run.finished", SessionID: sess, RunID: run,
		Data: json.RawMessage(`{"session_id":"` + sess + `","run_id":"` + run + `","outcome":"failed","persistence":"not_started","revision":null,"error_code":"execution_failed"}`)}})
	var restarted *restartedMsg
	for _, msg := range msgs(cmd) {
		if r, ok := msg.(restartedMsg); ok {
			restarted = &r
			continue
		}
		m.Update(msg)
	}
	if restarted == nil || m.quitting {
		t.Fatalf("after the turn: restarted %v, quitting %v (exit %d)\n%s", restarted != nil, m.quitting, m.ExitCode, printed(m))
	}
	m.Update(*restarted)
	_, cmd = m.Update(result(m.gen, "initialize", readyStatus))
	msgs(cmd)
	// input.persisted never came: nothing on disk to reopen.
	if method, _ := next.last(); method != "session.create" {
		t.Fatalf("after initialize: %s; want session.create", method)
	}
	_, cmd = m.Update(result(m.gen, "session.create", `{"session_id":"new-session","revision":"r1","durable":false,"notices":[]}`))
	msgs(cmd)
	m.Update(result(m.gen, "status", `{"state":"idle","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"c","session_id":"new-session","run_id":null}`))
	if !strings.Contains(printed(m), "this session keeps the model it was started with (fixture-model); /new starts a session with bigger") {
		t.Fatalf("the kept model is not said:\n%s", printed(m))
	}
	if restarts != 1 {
		t.Fatalf("restarts %d", restarts)
	}
}

// A backend that could not start (no credential) says so; a prompt is
// refused as not ready; /login restarts it and a session follows.
func TestNotReadyUntilLogin(t *testing.T) {
	fb := &fakeBackend{events: make(chan client.Event)}
	next := &fakeBackend{events: make(chan client.Event)}
	m := New(Options{Backend: fb,
		Login:   func(string, string) error { return nil },
		Restart: func() (Backend, error) { return next, nil }})
	m.Update(failure(0, "initialize", "provider_unavailable"))
	if v := view(m); !strings.Contains(v, "no API key or model") || strings.Contains(v, "provider_unavailable") {
		t.Fatalf("readiness not shown in words:\n%s", v)
	}
	typeLine(m, "hello")
	if m.running || !strings.Contains(printed(m), "not ready: no usable credential") || strings.Contains(printed(m), "provider_unavailable") {
		t.Fatalf("a prompt went out without a ready backend:\n%s", printed(m))
	}
	typeLine(m, "/login anthropic")
	m.Update(restartMsg(t, typeLine(m, "sk-ant-0123456789")))
	_, cmd := m.Update(result(m.gen, "initialize", readyStatus))
	msgs(cmd)
	if method, _ := next.last(); method != "session.create" {
		t.Fatalf("after initialize: %s; want session.create", method)
	}
}

// A reopen refused with session_busy (the ended backend is releasing the
// session) is retried; any other refusal leaves the app usable without a
// session.
func TestReopenRetriesSessionBusy(t *testing.T) {
	next := &fakeBackend{events: make(chan client.Event)}
	m, _, _ := started(t, Options{
		Login:   func(string, string) error { return nil },
		Restart: func() (Backend, error) { return next, nil },
	})
	send(m, "input.persisted", map[string]any{"message_id": "u1", "durable": true, "revision": "r2"})
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r3", "error_code": nil})
	typeLine(m, "/login openai")
	m.Update(restartMsg(t, typeLine(m, "sk-key-0123456789")))
	m.Update(result(m.gen, "initialize", readyStatus))
	_, cmd := m.Update(failure(m.gen, "session.open", "session_busy"))
	if cmd == nil || m.reopenTries != 1 || !m.restarting {
		t.Fatalf("session_busy not retried: tries %d", m.reopenTries)
	}
	_, cmd = m.Update(reopenMsg{gen: m.gen})
	msgs(cmd)
	if method, p := next.last(); method != "session.open" || p["session_id"] != sess {
		t.Fatalf("retry sent %s %v", method, p)
	}
	m.Update(failure(m.gen, "session.open", "session_invalid"))
	if m.restarting || m.sessionID != "" || !strings.Contains(printed(m), "could not reopen the session") {
		t.Fatalf("a failed reopen: restarting %v session %q\n%s", m.restarting, m.sessionID, printed(m))
	}
}

// Ctrl-C before turn.start has answered: the cancel goes out with the
// answer's run ID.
func TestCtrlCBeforeTheRunID(t *testing.T) {
	fb := &fakeBackend{events: make(chan client.Event)}
	m := New(Options{Backend: fb})
	m.Update(result(0, "initialize", readyStatus))
	m.Update(result(0, "session.create", `{"session_id":"`+sess+`","revision":"r1","durable":false,"notices":[]}`))
	typeLine(m, "go")
	if cmd := key(m, "ctrl+c"); cmd != nil || !m.cancelling || m.quitting {
		t.Fatalf("Ctrl-C without a run ID: cmd %v cancelling %v quitting %v", cmd != nil, m.cancelling, m.quitting)
	}
	_, cmd := m.Update(result(0, "turn.start", `{"run_id":"`+run+`","accepted":true}`))
	msgs(cmd)
	if method, p := fb.last(); method != "turn.cancel" || p["run_id"] != run {
		t.Fatalf("after turn.start: %s %v; want turn.cancel of the run", method, p)
	}
}

// A resumed session runs on the selection session.open restored, which
// status reports: the status bar shows that one, not initialize's.
func TestResumeShowsTheRestoredModel(t *testing.T) {
	fb := &fakeBackend{events: make(chan client.Event)}
	m := New(Options{Backend: fb, Resume: sess})
	_, cmd := m.Update(result(0, "initialize", readyStatus))
	msgs(cmd)
	_, cmd = m.Update(result(0, "session.open", `{"session_id":"`+sess+`","revision":"r1","durable":true,"notices":["saved_selection_notice"]}`))
	msgs(cmd)
	fb.mu.Lock()
	calls := strings.Join(fb.calls, " ")
	fb.mu.Unlock()
	if !strings.Contains(calls, "session.open history.page status") && !strings.Contains(calls, "session.open status") {
		t.Fatalf("calls %s; want status after session.open", calls)
	}
	m.Update(result(0, "status", `{"state":"idle","readiness":"ready","provider":"fixture","model":"saved-model","context_id":"c","session_id":"`+sess+`","run_id":null}`))
	if v := view(m); !strings.Contains(v, "fixture · saved-model") {
		t.Fatalf("status bar:\n%s", v)
	}
	if strings.Contains(printed(m), "backend restarted") {
		t.Fatal("a start was announced as a restart")
	}
}

// /approval ask|auto sets the mode of the backends of this run and
// restarts the backend like /model: at once when idle, after the turn when
// one runs; the mode in force is said without an argument; a bad mode or
// the mode in force already changes nothing.
func TestApprovalSwitchRestarts(t *testing.T) {
	next := &fakeBackend{events: make(chan client.Event)}
	restarts, mode, set := 0, "ask", []string{}
	m, _, _ := started(t, Options{
		ApprovalMode: func() string { return mode },
		SetApproval:  func(s string) { set = append(set, s) },
		Restart:      func() (Backend, error) { restarts++; return next, nil },
	})
	// a turn runs: the restart waits for its end
	typeLine(m, "/approval auto")
	if !m.restartPending || restarts != 0 || len(set) != 1 || set[0] != "auto" {
		t.Fatalf("during a turn: pending %v, restarts %d, set %v", m.restartPending, restarts, set)
	}
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r3", "error_code": nil})
	m.Update(drawnMsg{})
	if !m.restarting {
		t.Fatal("no restart after the turn")
	}
	mode = "auto"
	m.Update(restartedMsg{gen: m.gen, backend: next})
	_, cmd := m.Update(result(m.gen, "initialize", readyStatus))
	msgs(cmd)
	_, cmd = m.Update(result(m.gen, "session.create", `{"session_id":"`+sess+`","revision":"r1","durable":false,"notices":[]}`))
	msgs(cmd)
	m.Update(result(m.gen, "status", `{"state":"idle","readiness":"ready","provider":"fixture","model":"fixture-model","context_id":"c","session_id":"`+sess+`","run_id":null}`))
	if m.restarting {
		t.Fatal("still restarting")
	}
	for _, c := range []struct{ line, says string }{
		{"/approval", "approval mode auto;"},
		{"/approval auto", "approval mode is auto already"},
		{"/approval sometimes", "approval: /approval ask or /approval auto"},
		{"/approval ask now", "approval: /approval ask or /approval auto"},
	} {
		if cmd := typeLine(m, c.line); cmd != nil {
			msgs(cmd)
		}
		if !strings.Contains(printed(m), c.says) || len(set) != 1 {
			t.Fatalf("%s: set %v\n%s", c.line, set, printed(m))
		}
	}
	r := restartMsg(t, typeLine(m, "/approval ask"))
	if len(set) != 2 || set[1] != "ask" || r.backend != next || !strings.Contains(printed(m), "approval mode ask for this run (settings unchanged); restarting the backend with it") {
		t.Fatalf("idle: set %v\n%s", set, printed(m))
	}
}

// /logout removes the stored key of the provider in use, or of the one
// named, and restarts the backend like /login; a name login cannot store,
// or one with nothing stored, is said and changes nothing.
func TestLogout(t *testing.T) {
	next := &fakeBackend{events: make(chan client.Event)}
	var removed []string
	stored := map[string]bool{"openai": true, "fixture-like": false}
	m, _, _ := started(t, Options{
		Logout: func(p string) error {
			switch have, known := stored[p]; {
			case p == "nope" || !known && p != "anthropic":
				return ErrUnknownProvider
			case !have:
				return ErrNoCredential
			}
			stored[p] = false
			removed = append(removed, p)
			return nil
		},
		Restart: func() (Backend, error) { return next, nil },
	})
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r3", "error_code": nil})
	for _, c := range []struct{ line, says string }{
		{"/logout nope", "logout: unknown provider nope"},
		{"/logout anthropic", "logout: no stored credential for anthropic"},
		{"/logout a b", "logout: /logout [PROVIDER]"},
	} {
		typeLine(m, c.line)
		if !strings.Contains(printed(m), c.says) || len(removed) != 0 || m.restarting {
			t.Fatalf("%s: removed %v, restarting %v\n%s", c.line, removed, m.restarting, printed(m))
		}
	}
	r := restartMsg(t, typeLine(m, "/logout openai"))
	if len(removed) != 1 || removed[0] != "openai" || r.backend != next || !strings.Contains(printed(m), "removed the stored openai credential; restarting the backend with it") {
		t.Fatalf("removed %v\n%s", removed, printed(m))
	}
	// Without a name: the provider in use (the fixture's, in this model).
	m.restarting = false
	typeLine(m, "/logout")
	if !strings.Contains(printed(m), "logout: unknown provider fixture") {
		t.Fatalf("without a name:\n%s", printed(m))
	}
}

// /mcp lists the servers the backend's status named (mcp.status): running
// with its tools, or waiting for approval; before any status it says so;
// a name is shown as text.
func TestMCPCommand(t *testing.T) {
	m, _, _ := started(t, Options{})
	typeLine(m, "/mcp")
	if !strings.Contains(printed(m), "mcp: the backend has not said yet") {
		t.Fatalf("before a status:\n%s", printed(m))
	}
	m.status(json.RawMessage(`{"readiness":"ready","provider":"fixture","model":"fixture-model","mcp_servers":[{"name":"docs","state":"running","tools":3},{"name":"one","state":"running","tools":1},{"name":"proj\u001b]0;x","state":"not_approved","tools":0}]}`))
	typeLine(m, "/mcp")
	out := printed(m)
	for _, want := range []string{"docs  running, 3 tools", "one  running, 1 tool", "not approved: not started; magi-code mcp approve proj"} {
		if !strings.Contains(out, want) {
			t.Fatalf("%q not said:\n%s", want, out)
		}
	}
	if strings.Contains(strings.Join(m.Printed, ""), "\x1b]0;x") {
		t.Fatal("a server name reached the terminal raw")
	}
	m.status(json.RawMessage(`{"readiness":"ready","mcp_servers":[]}`))
	typeLine(m, "/mcp")
	if !strings.Contains(printed(m), "no MCP servers are enabled") {
		t.Fatalf("none:\n%s", printed(m))
	}
}

// /compact sends itself as the turn's prompt (the backend's compact
// capability compacts for it), never during a turn.
func TestCompactCommandSends(t *testing.T) {
	m, fb, _ := started(t, Options{})
	typeLine(m, "/compact keep names")
	if !strings.Contains(printed(m), "compact: a turn is running") {
		t.Fatalf("during a turn:\n%s", printed(m))
	}
	send(m, "run.finished", map[string]any{"outcome": "completed", "persistence": "durable", "revision": "r3", "error_code": nil})
	msgs(typeLine(m, "/compact keep  names"))
	fb.mu.Lock()
	defer fb.mu.Unlock()
	last := fb.params[len(fb.params)-1]
	if p, _ := last.(map[string]string); fb.calls[len(fb.calls)-1] != "turn.start" || p["prompt"] != "/compact keep names" {
		t.Fatalf("sent %s %v", fb.calls[len(fb.calls)-1], last)
	}
}

package clienttest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/protocol"
)

// HangGuard bounds every wait of these helpers. It only turns a hang into a
// failure; nothing here asserts how fast anything happens.
const HangGuard = 2 * time.Minute

// AllCapabilities is every capability of version 1 except initialize.
var AllCapabilities = []string{"status", "shutdown", "session.create", "session.open", "history.page", "turn.start", "turn.cancel", "approval.answer"}

// Guard returns a context that ends after HangGuard or at t's cleanup.
func Guard(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), HangGuard)
	t.Cleanup(cancel)
	return ctx
}

// Child is one running magi-code serve --stdio process driven by one test:
// every helper fails T (with Fatalf unless it says otherwise) instead of
// returning an error. Its helpers are as safe for concurrent use as T.
type Child struct {
	T  testing.TB
	WS *Workspace
	C  *client.Client
}

// Spawn starts a child in w (see Start) without initializing it.
func (w *Workspace) Spawn(t testing.TB, opts client.Options) *Child {
	t.Helper()
	return &Child{T: t, WS: w, C: w.Start(t, opts)}
}

// StartChild starts a child in w and initializes it with
// AllCapabilities, requiring success.
func (w *Workspace) StartChild(t testing.TB, opts client.Options) *Child {
	t.Helper()
	ch := w.Spawn(t, opts)
	ch.Result("initialize", map[string]any{"required_capabilities": AllCapabilities}, nil)
	return ch
}

// Call sends one request with a fresh ID and returns its response, result
// or error.
func (ch *Child) Call(method string, params any) *client.Response {
	ch.T.Helper()
	r, err := ch.C.Call(Guard(ch.T), method, params)
	if err != nil {
		ch.T.Fatalf("%s: %v", method, err)
	}
	return r
}

// Result calls, requires a result and decodes it into v (unless nil).
func (ch *Child) Result(method string, params, v any) *client.Response {
	ch.T.Helper()
	r := ch.Call(method, params)
	if r.Error != nil {
		ch.T.Fatalf("%s(%v): error %s", method, params, r.Error.Code)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result, v); err != nil {
			ch.T.Fatalf("%s: result %s: %v", method, r.Result, err)
		}
	}
	return r
}

// WantError calls and requires an error response with code.
func (ch *Child) WantError(method string, params any, code protocol.Code) {
	ch.T.Helper()
	r := ch.Call(method, params)
	if r.Error == nil || r.Error.Code != string(code) {
		ch.T.Fatalf("%s(%v) = %s; want error %s", method, params, r.Raw, code)
	}
}

// SessionResult is the result of session.create and session.open.
type SessionResult struct {
	SessionID string   `json:"session_id"`
	Durable   bool     `json:"durable"`
	Revision  string   `json:"revision"`
	Notices   []string `json:"notices"`
}

// Create attaches a new session.
func (ch *Child) Create() SessionResult {
	ch.T.Helper()
	var s SessionResult
	ch.Result("session.create", nil, &s)
	return s
}

// Open attaches session id.
func (ch *Child) Open(id string) SessionResult {
	ch.T.Helper()
	var s SessionResult
	ch.Result("session.open", map[string]string{"session_id": id}, &s)
	return s
}

// StatusResult is the result of status.
type StatusResult struct {
	State     string  `json:"state"`
	Readiness string  `json:"readiness"`
	Provider  *string `json:"provider"`
	Model     *string `json:"model"`
	ContextID *string `json:"context_id"`
	SessionID *string `json:"session_id"`
	RunID     *string `json:"run_id"`
}

// Status asks for the status.
func (ch *Child) Status() StatusResult {
	ch.T.Helper()
	var s StatusResult
	ch.Result("status", nil, &s)
	return s
}

// StartTurn sends turn.start, requires its admission and returns the run ID
// and the admission response (whose seq every event of the run follows).
func (ch *Child) StartTurn(sessionID, prompt string) (runID string, admission *client.Response) {
	ch.T.Helper()
	var res struct {
		RunID    string `json:"run_id"`
		Accepted bool   `json:"accepted"`
	}
	r := ch.Result("turn.start", map[string]string{"session_id": sessionID, "prompt": prompt}, &res)
	if !res.Accepted || res.RunID == "" {
		ch.T.Fatalf("turn.start: result %s", r.Result)
	}
	return res.RunID, r
}

// Turn runs one whole turn and returns its checked run.
func (ch *Child) Turn(sessionID, prompt string) Run {
	ch.T.Helper()
	runID, admission := ch.StartTurn(sessionID, prompt)
	return ch.Finish(sessionID, runID, admission, nil)
}

// Finish receives the rest of run runID up to its run.finished, after the
// events seen already received (by Until), and checks them all with
// CheckRun. An event of another run fails.
func (ch *Child) Finish(sessionID, runID string, admission *client.Response, seen []client.Event) Run {
	ch.T.Helper()
	rest, err := ch.C.CollectRun(Guard(ch.T), runID)
	if err != nil {
		ch.T.Fatalf("collecting run %s: %v (after %d events)", runID, err, len(seen)+len(rest))
	}
	return CheckRun(ch.T, sessionID, runID, admission, append(seen, rest...))
}

// NextEvent receives one event, under the hang guard.
func (ch *Child) NextEvent() client.Event {
	ch.T.Helper()
	ev, err := ch.C.WaitEvent(Guard(ch.T), func(client.Event) bool { return true })
	if err != nil {
		ch.T.Fatalf("waiting for an event: %v", err)
	}
	return ev
}

// Until receives events of run runID into *seen until pred accepts one, and
// returns it. An event of another run, or run.finished before that, fails;
// what names the awaited event in the failure.
func (ch *Child) Until(seen *[]client.Event, runID, what string, pred func(client.Event) bool) client.Event {
	ch.T.Helper()
	for {
		ev := ch.NextEvent()
		if ev.RunID != runID {
			ch.T.Fatalf("event %s of run %q while waiting for %s in run %q", ev.Name, ev.RunID, what, runID)
		}
		*seen = append(*seen, ev)
		if pred(ev) {
			return ev
		}
		if ev.Name == protocol.EventRunFinished {
			ch.T.Fatalf("run.finished %s while waiting for %s", ev.Data, what)
		}
	}
}

// UntilNamed is Until for the first event named name.
func (ch *Child) UntilNamed(seen *[]client.Event, runID, name string) client.Event {
	ch.T.Helper()
	return ch.Until(seen, runID, name, Named(name))
}

// Named accepts events named name.
func Named(name string) func(client.Event) bool {
	return func(ev client.Event) bool { return ev.Name == name }
}

// ActivityOf accepts activity events of kind, name and state ("" matches
// any).
func ActivityOf(kind, name, state string) func(client.Event) bool {
	return func(ev client.Event) bool {
		if ev.Name != protocol.EventActivity {
			return false
		}
		var a Activity
		if ev.Decode(&a) != nil {
			return false
		}
		return (kind == "" || a.Kind == kind) && (name == "" || a.Name == name) && (state == "" || a.State == state)
	}
}

// Cancel sends turn.cancel and returns its response, result or error.
func (ch *Child) Cancel(sessionID, runID string) *client.Response {
	ch.T.Helper()
	return ch.Call("turn.cancel", map[string]string{"session_id": sessionID, "run_id": runID})
}

// AnswerCall sends approval.answer and returns its response, result or
// error.
func (ch *Child) AnswerCall(sessionID, runID, approvalID string, allow bool) *client.Response {
	ch.T.Helper()
	return ch.Call("approval.answer", map[string]any{"session_id": sessionID, "run_id": runID, "approval_id": approvalID, "allow": allow})
}

// Answer answers an approval and requires exactly {"recorded":true}.
func (ch *Child) Answer(sessionID, runID, approvalID string, allow bool) {
	ch.T.Helper()
	r := ch.AnswerCall(sessionID, runID, approvalID, allow)
	if r.Error != nil || string(r.Result) != `{"recorded":true}` {
		ch.T.Fatalf("approval.answer: %s", r.Raw)
	}
}

// Shutdown sends shutdown, requires exactly {"state":"stopping"}, and then
// exit 0 with nothing on stderr and a protocol-clean output (WantExit).
func (ch *Child) Shutdown() {
	ch.T.Helper()
	r := ch.Call("shutdown", nil)
	if r.Error != nil || string(r.Result) != `{"state":"stopping"}` {
		ch.T.Fatalf("shutdown: %s", r.Raw)
	}
	ch.WantExit(0)
}

// WantExit is WantExit for the child.
func (ch *Child) WantExit(want int) {
	ch.T.Helper()
	WantExit(ch.T, ch.C, want)
}

// WaitExit waits for c's child under the hang guard (killing it when the
// guard runs out, which fails the test) and returns its exit code and
// stderr. A protocol violation or read error in its output is reported
// with Errorf.
func WaitExit(t testing.TB, c *client.Client) (code int, stderr []byte) {
	t.Helper()
	type result struct {
		code   int
		stderr []byte
		err    error
	}
	done := make(chan result, 1)
	go func() {
		code, stderr, err := c.Wait()
		done <- result{code, stderr, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Errorf("child output: %v", r.err)
		}
		return r.code, r.stderr
	case <-time.After(HangGuard):
		c.Kill()
		select {
		case <-done:
			t.Fatalf("child did not exit within %v", HangGuard)
		case <-time.After(HangGuard):
			t.Fatalf("child did not exit within %v, and its output did not end within %v of SIGKILL", HangGuard, HangGuard)
		}
		return 0, nil
	}
}

// WantExit waits for c's child (WaitExit) and requires exit code want with
// nothing written to stderr; it reports with Errorf.
func WantExit(t testing.TB, c *client.Client, want int) {
	t.Helper()
	code, stderr := WaitExit(t, c)
	if code != want {
		t.Errorf("exit code %d; want %d (stderr %q)", code, want, stderr)
	}
	if len(stderr) != 0 || c.StderrBytes() != 0 {
		t.Errorf("stderr not empty (%d bytes): %q", c.StderrBytes(), stderr)
	}
}

// WaitFor polls cond every 10 ms until it holds, failing after the hang
// guard. It is for effects outside the protocol (files a tool writes,
// processes exiting), never a timing assertion.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(HangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

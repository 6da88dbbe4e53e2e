package session

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

// child is one running magi-code serve --stdio process, initialized.
type child struct {
	t  testing.TB
	ws *clienttest.Workspace
	c  *client.Client
}

// step is one fixture script step (DESIGN.md).
type step map[string]any

func text(s string) step          { return step{"text": s} }
func repeat(s string, n int) step { return step{"text": s, "repeat": n} }
func sleepMs(n int) step          { return step{"sleep_ms": n} }
func shell(command string) step {
	return step{"tool_call": map[string]any{"name": "shell", "arguments": map[string]string{"command": command}}}
}
func response(steps ...step) []step { return steps }

// newWorkspace makes a workspace whose settings select the fixture provider
// with the given script responses (none: echo) and tools.approval.
func newWorkspace(t testing.TB, approval string, responses ...[]step) *clienttest.Workspace {
	t.Helper()
	ws := clienttest.NewWorkspace(t, "")
	settings := clienttest.FixtureSettings
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
	if approval != "" {
		settings += "\n[tools]\napproval = " + quote(approval) + "\n"
	}
	ws.WriteFile(t, filepath.Join(ws.Home, "settings.toml"), settings)
	return ws
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// start starts a child in ws (cwd ws.Cwd unless opts.Dir says otherwise)
// and initializes it.
func start(t testing.TB, ws *clienttest.Workspace, opts client.Options) *child {
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

// wantError calls and checks the error code.
func (ch *child) wantError(method string, params any, code wire.Code) {
	ch.t.Helper()
	r := ch.call(method, params)
	if r.Error == nil || r.Error.Code != string(code) {
		ch.t.Fatalf("%s(%v) = %s %v; want error %s", method, params, r.Result, r.Error, code)
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
	SessionID *string `json:"session_id"`
	RunID     *string `json:"run_id"`
}

func (ch *child) status() statusResult {
	ch.t.Helper()
	var s statusResult
	ch.result("status", nil, &s)
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

// collect receives the run's events up to run.finished and checks the
// order rules of the spec; see checkRun.
func (ch *child) collect(sessionID, runID string, admission *client.Response) run {
	ch.t.Helper()
	evs, err := ch.c.CollectRun(ctxGuard(ch.t), runID)
	if err != nil {
		ch.t.Fatalf("collecting run %s: %v (after %d events)", runID, err, len(evs))
	}
	return checkRun(ch.t, sessionID, runID, admission, evs)
}

// turn runs one whole turn.
func (ch *child) turn(sessionID, prompt string) run {
	ch.t.Helper()
	runID, adm := ch.startTurn(sessionID, prompt)
	return ch.collect(sessionID, runID, adm)
}

// noEventsAfter checks that nothing follows run.finished: a status round
// trip orders every earlier frame before its response, so an event sent
// before it is already in the Events channel.
func (ch *child) noEventsAfter() {
	ch.t.Helper()
	ch.status()
	select {
	case ev, ok := <-ch.c.Events():
		if ok {
			ch.t.Fatalf("event %s (seq %d) after run.finished", ev.Name, ev.Seq)
		}
	default:
	}
}

// shutdown shuts the child down and waits for exit 0.
func (ch *child) shutdown() {
	ch.t.Helper()
	var res struct {
		State string `json:"state"`
	}
	ch.result("shutdown", nil, &res)
	if res.State != "stopping" {
		ch.t.Fatalf("shutdown: state %q", res.State)
	}
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
	id        string
	events    []client.Event
	persisted inputPersisted
	finished  runFinished
	// reconciled is the authoritative text per assistant message in order
	// of first reconcile; partial says whether it was reconciled as partial.
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

func (r run) count(name string) int {
	n := 0
	for _, ev := range r.events {
		if ev.Name == name {
			n++
		}
	}
	return n
}

type inputPersisted struct {
	MessageID string `json:"message_id"`
	Durable   bool   `json:"durable"`
	Revision  string `json:"revision"`
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

// checkRun checks the spec's order rules on one run's events: the
// admission response precedes them, input.persisted comes first (when the
// input was persisted), run.finished exactly once and last, every event
// carries the session and run IDs, deltas and reconciles are valid UTF-8
// parts of at most 4,000 bytes with increasing part numbers, and the
// reconcile parts of each message are contiguous from 0 up to last_part.
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
		if ev.Name == wire.EventInputPersisted && i != 0 {
			t.Fatalf("input.persisted at %d, after %s", i, evs[0].Name)
		}
	}
	last := evs[len(evs)-1]
	if last.Name != wire.EventRunFinished {
		t.Fatalf("last event %s", last.Name)
	}
	if err := last.Decode(&r.finished); err != nil {
		t.Fatal(err)
	}
	if evs[0].Name == wire.EventInputPersisted {
		if err := evs[0].Decode(&r.persisted); err != nil {
			t.Fatal(err)
		}
		if !r.persisted.Durable || r.persisted.Revision == "" || r.persisted.MessageID == "" {
			t.Fatalf("input.persisted %s", evs[0].Data)
		}
	} else if r.finished.Persistence != "not_started" {
		t.Fatalf("first event %s, persistence %s", evs[0].Name, r.finished.Persistence)
	}

	deltaNext := map[string]int{}
	recon := map[string]int{} // next reconcile part per message; -1 once complete
	for _, ev := range evs {
		switch ev.Name {
		case wire.EventMessageDelta, wire.EventMessageReconcile:
		default:
			continue
		}
		var te textEvent
		if err := ev.Decode(&te); err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(te.Text) || len(te.Text) > wire.LiveChunkBytes {
			t.Fatalf("%s part %d: %d bytes, valid UTF-8 %v", ev.Name, te.Part, len(te.Text), utf8.ValidString(te.Text))
		}
		if ev.Name == wire.EventMessageDelta {
			if te.Part < deltaNext[te.MessageID] {
				t.Fatalf("delta part %d after %d", te.Part, deltaNext[te.MessageID]-1)
			}
			deltaNext[te.MessageID] = te.Part + 1
			continue
		}
		want, seen := recon[te.MessageID]
		if want < 0 || te.Part != want {
			t.Fatalf("reconcile of %s: part %d, want %d", te.MessageID, te.Part, want)
		}
		if !seen {
			r.messages = append(r.messages, message{id: te.MessageID, partial: te.Partial})
		}
		m := &r.messages[len(r.messages)-1]
		if m.id != te.MessageID {
			t.Fatalf("reconcile parts of %s interleaved with %s", m.id, te.MessageID)
		}
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
	SessionID  string  `json:"session_id"`
	Revision   string  `json:"revision"`
	Entries    []entry `json:"entries"`
	NextCursor *string `json:"next_cursor"`
	Complete   bool    `json:"complete"`
}

// history pages through the whole projection at revision and checks the
// page bounds: at most 100 entries and 32,768 result bytes per page,
// complete only on the last page, parts contiguous per message.
func (ch *child) history(sessionID, revision string) (entries []entry, complete bool, pages int) {
	ch.t.Helper()
	var cursor *string
	for {
		var p page
		r := ch.result("history.page", map[string]any{"session_id": sessionID, "revision": revision, "cursor": cursor}, &p)
		pages++
		if len(r.Result) > wire.HistoryPageBytes || len(p.Entries) > wire.HistoryPageEntries {
			ch.t.Fatalf("page %d: %d bytes, %d entries", pages, len(r.Result), len(p.Entries))
		}
		if p.SessionID != sessionID || p.Revision != revision {
			ch.t.Fatalf("page %d: session %q revision %q", pages, p.SessionID, p.Revision)
		}
		for _, e := range p.Entries {
			if !utf8.ValidString(e.Text) || len(e.Text) > wire.HistoryChunkBytes {
				ch.t.Fatalf("entry part %d: %d bytes", e.Part, len(e.Text))
			}
		}
		entries = append(entries, p.Entries...)
		if p.NextCursor == nil {
			complete = p.Complete
			break
		}
		if p.Complete {
			ch.t.Fatalf("page %d: complete=true with a next cursor", pages)
		}
		if pages > 10_000 {
			ch.t.Fatal("endless paging")
		}
		cursor = p.NextCursor
	}
	for i, e := range entries {
		first := i == 0 || entries[i-1].LastPart || entries[i-1].MessageID != e.MessageID
		if first && e.Part != 0 || !first && (e.MessageID != entries[i-1].MessageID || e.Part != entries[i-1].Part+1) {
			ch.t.Fatalf("entry %d: message %s part %d after %s part %d", i, e.MessageID, e.Part, entries[max(i-1, 0)].MessageID, entries[max(i-1, 0)].Part)
		}
	}
	return entries, complete, pages
}

// historyMessage is a message of a projection, its parts joined.
type historyMessage struct {
	Kind    string
	Text    string
	Partial bool
	Done    bool // last_part seen
}

// messages joins the entries' parts per message, in order.
func messages(entries []entry) []historyMessage {
	var out []historyMessage
	for i, e := range entries {
		if i == 0 || entries[i-1].LastPart || entries[i-1].MessageID != e.MessageID {
			out = append(out, historyMessage{Kind: e.Kind})
		}
		m := &out[len(out)-1]
		m.Text += e.Text
		m.Partial = m.Partial || e.Partial
		m.Done = e.LastPart
	}
	return out
}

// sessionFile is the JSONL file of a session (DESIGN.md).
func sessionFile(home, id string) string {
	return filepath.Join(home, "sessions", id+".jsonl")
}

// waitFor polls cond until it holds, failing after the hang guard. Used for
// effects outside the protocol (files a shell writes, processes exiting).
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

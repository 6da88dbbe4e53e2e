package audit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestNoProviderRequestOutsideTurns: initialization makes "No provider
// generation, catalog fetch or provider OAuth exchange"; status "Never
// performs a provider request"; "Create/open never executes tools or
// provider generation, fetches a model catalog". A turn does reach the
// provider (the positive control); its failure body never reaches the
// wire ("never ... raw provider responses"), nor does the API key.
func TestNoProviderRequestOutsideTurns(t *testing.T) {
	t.Parallel()
	const key = "sk-AUDITkey0123456789abcdefghijklmnop"
	const body = "AUDIT-PROVIDER-BODY-77"
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"message":"`+body+`","type":"invalid_request_error","code":"`+body+`"}}`)
	}))
	t.Cleanup(srv.Close)
	ws := clienttest.NewWorkspace(t, "provider = \"openai\"\nmodel = \"audit-model\"\n[providers.openai]\nbase_url = "+clienttest.Quote(srv.URL+"/v1")+"\napi_key_env = \"AUDIT_OPENAI_KEY\"\n")
	env := append(ws.Env(), "AUDIT_OPENAI_KEY="+key)
	ch := start(t, ws, client.Options{Env: env, RecordFrames: true})
	st := ch.Status()
	if st.State != "idle" || deref(st.Provider) != "openai" || deref(st.Model) != "audit-model" {
		t.Errorf("status %+v", st)
	}
	s := ch.Create()
	ch.Open(s.SessionID)
	ch.HistoryNoCursor(s.SessionID, ch.Open(s.SessionID).Revision)
	ch.Status()
	if n := requests.Load(); n != 0 {
		t.Fatalf("%d provider requests before any turn", n)
	}
	r := ch.Turn(s.SessionID, "hello provider")
	if requests.Load() == 0 {
		t.Fatal("the turn made no provider request (the control failed)")
	}
	if r.Finished.Outcome != "failed" || r.Finished.ErrorCode == nil {
		t.Errorf("run.finished %+v; want failed with an error code", r.Finished)
	}
	ch.Shutdown()
	for _, f := range ch.C.Frames() {
		if strings.Contains(string(f.Raw), body) || strings.Contains(string(f.Raw), key) || strings.Contains(string(f.Raw), srv.URL) {
			t.Errorf("frame carries the provider body, key or URL: %s", f.Raw)
		}
	}
}

// TestRequiredInputAppendFails: "Required-input append failure yields
// failed/not_started"; "input.persisted ... emitted only after required
// input append succeeds, before provider execution"; "preflight rejection
// emits no persisted acknowledgement". The session file's path is taken
// by a directory, so the first append cannot create it; the tool the
// script asks for must never run.
func TestRequiredInputAppendFails(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	ws := fixtureWorkspace(t, "auto", "", []step{shell("touch " + marker)}, []step{text("after")})
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	if err := os.Mkdir(clienttest.SessionFile(ws.Home, s.SessionID), 0o700); err != nil {
		t.Fatal(err)
	}
	r := ch.Turn(s.SessionID, "cannot persist")
	if n := r.Count(protocol.EventInputPersisted); n != 0 {
		t.Errorf("%d input.persisted events although the append failed", n)
	}
	f := r.Finished
	if f.Outcome != "failed" || f.Persistence != "not_started" || f.Revision != nil || deref(f.ErrorCode) != "persistence_failed" {
		t.Errorf("run.finished %+v; want failed, not_started, revision null, persistence_failed", f)
	}
	if clienttest.FileExists(marker) {
		t.Error("the provider ran (its tool call executed) although the input was not persisted")
	}
	if st := ch.Status(); st.State != "idle" || st.RunID != nil {
		t.Errorf("status after the failed run: %+v", st)
	}
	ch.Shutdown()
}

// TestProviderFailure: "Failure/cancellation keeps redacted partial
// replies"; "recorded failed/cancelled turns retain partial replies but can
// have a complete projection"; run.finished reports failed with an error
// code and durable persistence.
func TestProviderFailure(t *testing.T) {
	t.Parallel()
	partial := strings.Repeat("partial answer ", 40)
	ws := fixtureWorkspace(t, "", "", []step{text(partial), {"error": "rate_limited"}})
	ch := start(t, ws, client.Options{RecordFrames: true})
	s := ch.Create()
	r := ch.Turn(s.SessionID, "fail please")
	f := r.Finished
	if f.Outcome != "failed" || f.ErrorCode == nil || f.Persistence != "durable" || f.Revision == nil {
		t.Fatalf("run.finished %+v; want failed with a code, durable, a revision", f)
	}
	if got, isPartial := r.Reply(), r.Partial(); got != partial || !isPartial {
		t.Errorf("reconciled %q (partial %v); want the partial reply marked partial", got, isPartial)
	}
	es, complete, _ := ch.HistoryNoCursor(s.SessionID, *f.Revision)
	var assistant []entry
	for _, e := range es {
		if e.Kind == "assistant" {
			assistant = append(assistant, e)
		}
	}
	if len(assistant) != 1 || assistant[0].Text != partial || !assistant[0].Partial {
		t.Errorf("history %v: want one partial assistant entry with the partial reply", kinds(es))
	}
	t.Logf("complete=%v, entries %v, error_code %s", complete, kinds(es), *f.ErrorCode)
	ch.Shutdown()
}

// TestNoAuxiliaryCalls: docs/protocol.md, Choices: "Every provider call of the runner consumes
// the next fixture response ...; serve makes no title or other auxiliary
// calls"; spec "Omit late auxiliary/title UI updates". Two turns get the
// first and second scripted responses in order.
func TestNoAuxiliaryCalls(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "", []step{text("first answer")}, []step{text("second answer")})
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	for _, want := range []string{"first answer", "second answer"} {
		r := ch.Turn(s.SessionID, "next")
		if got := r.Reply(); got != want {
			t.Errorf("reply %q; want %q (an extra provider call consumed a response)", got, want)
		}
		if r.Count(protocol.EventMessageDelta) > 0 {
			var first clienttest.TextEvent
			for _, ev := range r.Events {
				if ev.Name == protocol.EventMessageDelta {
					_ = ev.Decode(&first)
					break
				}
			}
			if first.Part != 0 {
				t.Errorf("first delta part %d; want 0 (\"Delta parts start at 0\")", first.Part)
			}
		}
	}
	ch.Shutdown()
}

// TestToolEnvironment: docs/protocol.md, Choices: "MCP servers and tool subprocesses get a
// minimal environment (PATH, HOME, LANG, TERM and what their own settings
// add), never the provider credentials". Also "approval.requested ...
// run-scoped UUID".
func TestToolEnvironment(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "env.txt")
	ws := fixtureWorkspace(t, "ask", "", []step{shell("env > " + out)}, []step{text("done")})
	env := append(ws.Env(), "OPENAI_API_KEY=sk-AUDITenv0123456789abcdef", "ANTHROPIC_API_KEY=sk-ant-AUDIT0123456789", "AUDIT_PRIVATE_TOKEN=secret-value-42")
	ch := start(t, ws, client.Options{Env: env})
	s := ch.Create()
	runID, adm := ch.StartTurn(s.SessionID, "print env")
	var evs []client.Event
	ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
	var req struct {
		ApprovalID string `json:"approval_id"`
	}
	_ = ev.Decode(&req)
	if !uuidRE.MatchString(req.ApprovalID) {
		t.Errorf("approval_id %q is not a UUID", req.ApprovalID)
	}
	ch.Result("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": req.ApprovalID, "allow": true}, nil)
	r := ch.Finish(s.SessionID, runID, adm, evs)
	if r.Finished.Outcome != "completed" {
		t.Fatalf("run.finished %+v", r.Finished)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the shell did not run: %v", err)
	}
	for _, leak := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AUDIT_PRIVATE_TOKEN", "MC_HOME"} {
		if strings.Contains(string(b), leak+"=") {
			t.Errorf("tool environment carries %s", leak)
		}
	}
	ch.Shutdown()
}

// TestShutdownDuringRun: shutdown "Cancels ... active turn ..., then
// drains output"; a run.finished, if delivered, is cancelled; exit 0 with
// empty stderr, and the stored turn is readable in a new child.
func TestShutdownDuringRun(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "", []step{text(strings.Repeat("working ", 100)), sleepMs(600_000), text("never")})
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	runID, _ := ch.StartTurn(s.SessionID, "long")
	if _, err := ch.C.WaitEvent(clienttest.Guard(t), func(e client.Event) bool { return e.Name == protocol.EventMessageDelta }); err != nil {
		t.Fatal(err)
	}
	r := ch.Call("shutdown", nil)
	if r.Error != nil || string(r.Result) != `{"state":"stopping"}` {
		t.Fatalf("shutdown: %s", r.Raw)
	}
	var fin *clienttest.RunFinished
	for ev := range ch.C.Events() {
		if ev.RunID != runID {
			t.Errorf("event of run %q", ev.RunID)
		}
		if fin != nil {
			t.Errorf("event %s after run.finished", ev.Name)
		}
		if ev.Name == protocol.EventRunFinished {
			fin = &clienttest.RunFinished{}
			_ = ev.Decode(fin)
		}
	}
	ch.WantExit(0)
	if fin != nil && fin.Outcome != "cancelled" {
		t.Errorf("run.finished after shutdown: %+v; want cancelled", *fin)
	}
	ch2 := start(t, ws, client.Options{})
	o := ch2.Open(s.SessionID)
	es, _, _ := ch2.HistoryNoCursor(s.SessionID, o.Revision)
	if len(es) == 0 || es[0].Kind != "user" || es[0].Text != "long" {
		t.Errorf("history after shutdown mid-run: %v", kinds(es))
	}
	ch2.Shutdown()
}

// TestManyEntriesPaging: "History page: ... at most 100 entries";
// "complete=true only on last page"; cursor and message IDs follow the
// 64-byte ID grammar; 60 turns are 120 entries, so at least two pages.
func TestManyEntriesPaging(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "")
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	var rev string
	for range 60 {
		r := ch.Turn(s.SessionID, "again")
		rev = *r.Finished.Revision
	}
	if !clienttest.IDGrammar.MatchString(rev) {
		t.Errorf("revision %q outside the ID grammar", rev)
	}
	es, complete, pages := ch.HistoryNoCursor(s.SessionID, rev)
	if len(es) != 120 || !complete || pages < 2 {
		t.Errorf("%d entries, complete %v, %d pages; want 120, true, >= 2", len(es), complete, pages)
	}
	for i, e := range es {
		want := map[bool]string{true: "user", false: "assistant"}[i%2 == 0]
		if e.Kind != want {
			t.Fatalf("entry %d kind %s; want %s (stored order)", i, e.Kind, want)
		}
	}
	ch.Shutdown()
}

// TestSegmentLimit: "Bound authoritative content to 8 MiB/run and 512
// segments; exceeding limits fails with content_limit, reports
// partial/degraded status truthfully, never silent truncation". 513
// tool-separated assistant segments in one run.
func TestSegmentLimit(t *testing.T) {
	t.Parallel()
	var responses [][]step
	for range 513 {
		responses = append(responses, []step{text("segment "), tool("list_dir", map[string]any{"path": "."})})
	}
	responses = append(responses, []step{text("last")})
	ws := fixtureWorkspace(t, "auto", "", responses...)
	ch := start(t, ws, client.Options{IgnoreEvents: false})
	s := ch.Create()
	r := ch.Turn(s.SessionID, "many segments")
	segments := map[string]bool{}
	for _, ev := range r.Events {
		if ev.Name == protocol.EventMessageReconcile {
			var te clienttest.TextEvent
			_ = ev.Decode(&te)
			segments[te.MessageID] = true
		}
	}
	if r.Finished.Outcome != "failed" || deref(r.Finished.ErrorCode) != "content_limit" {
		t.Errorf("run.finished %+v after %d reconciled segments; want failed with content_limit", r.Finished, len(segments))
	}
	t.Logf("run.finished %+v, %d segments, %d events", r.Finished, len(segments), len(r.Events))
	if len(segments) > 512 {
		t.Errorf("%d segments reconciled; at most 512", len(segments))
	}
	ch.Shutdown()
}

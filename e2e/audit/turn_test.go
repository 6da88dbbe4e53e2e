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
	"github.com/magi-code/magi-code/stages/wire"
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
	ws := clienttest.NewWorkspace(t, "provider = \"openai\"\nmodel = \"audit-model\"\n[providers.openai]\nbase_url = "+quote(srv.URL+"/v1")+"\napi_key_env = \"AUDIT_OPENAI_KEY\"\n")
	env := append(ws.Env(), "AUDIT_OPENAI_KEY="+key)
	ch := start(t, ws, client.Options{Env: env, RecordFrames: true})
	st := ch.status()
	if st.State != "idle" || deref(st.Provider) != "openai" || deref(st.Model) != "audit-model" {
		t.Errorf("status %+v", st)
	}
	s := ch.create()
	ch.open(s.SessionID)
	ch.history(s.SessionID, ch.open(s.SessionID).Revision)
	ch.status()
	if n := requests.Load(); n != 0 {
		t.Fatalf("%d provider requests before any turn", n)
	}
	r := ch.turn(s.SessionID, "hello provider")
	if requests.Load() == 0 {
		t.Fatal("the turn made no provider request (the control failed)")
	}
	if r.finished.Outcome != "failed" || r.finished.ErrorCode == nil {
		t.Errorf("run.finished %+v; want failed with an error code", r.finished)
	}
	ch.shutdown()
	for _, f := range ch.c.Frames() {
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
	s := ch.create()
	if err := os.Mkdir(sessionFile(ws.Home, s.SessionID), 0o700); err != nil {
		t.Fatal(err)
	}
	r := ch.turn(s.SessionID, "cannot persist")
	if n := r.count(wire.EventInputPersisted); n != 0 {
		t.Errorf("%d input.persisted events although the append failed", n)
	}
	f := r.finished
	if f.Outcome != "failed" || f.Persistence != "not_started" || f.Revision != nil || deref(f.ErrorCode) != "persistence_failed" {
		t.Errorf("run.finished %+v; want failed, not_started, revision null, persistence_failed", f)
	}
	if fileExists(marker) {
		t.Error("the provider ran (its tool call executed) although the input was not persisted")
	}
	if st := ch.status(); st.State != "idle" || st.RunID != nil {
		t.Errorf("status after the failed run: %+v", st)
	}
	ch.shutdown()
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
	s := ch.create()
	r := ch.turn(s.SessionID, "fail please")
	f := r.finished
	if f.Outcome != "failed" || f.ErrorCode == nil || f.Persistence != "durable" || f.Revision == nil {
		t.Fatalf("run.finished %+v; want failed with a code, durable, a revision", f)
	}
	if got, isPartial := r.reply(); got != partial || !isPartial {
		t.Errorf("reconciled %q (partial %v); want the partial reply marked partial", got, isPartial)
	}
	es, complete, _ := ch.history(s.SessionID, *f.Revision)
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
	ch.shutdown()
}

// TestNoAuxiliaryCalls: DESIGN "Every provider call of the runner consumes
// the next fixture response ...; serve makes no title or other auxiliary
// calls"; spec "Omit late auxiliary/title UI updates". Two turns get the
// first and second scripted responses in order.
func TestNoAuxiliaryCalls(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "", []step{text("first answer")}, []step{text("second answer")})
	ch := start(t, ws, client.Options{})
	s := ch.create()
	for _, want := range []string{"first answer", "second answer"} {
		r := ch.turn(s.SessionID, "next")
		if got, _ := r.reply(); got != want {
			t.Errorf("reply %q; want %q (an extra provider call consumed a response)", got, want)
		}
		if r.count(wire.EventMessageDelta) > 0 {
			var first textEvent
			for _, ev := range r.events {
				if ev.Name == wire.EventMessageDelta {
					_ = ev.Decode(&first)
					break
				}
			}
			if first.Part != 0 {
				t.Errorf("first delta part %d; want 0 (\"Delta parts start at 0\")", first.Part)
			}
		}
	}
	ch.shutdown()
}

// TestToolEnvironment: DESIGN "MCP servers and tool subprocesses get a
// minimal environment (PATH, HOME, LANG, TERM and what their own settings
// add), never the provider credentials". Also "approval.requested ...
// run-scoped UUID".
func TestToolEnvironment(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "env.txt")
	ws := fixtureWorkspace(t, "ask", "", []step{shell("env > " + out)}, []step{text("done")})
	env := append(ws.Env(), "OPENAI_API_KEY=sk-AUDITenv0123456789abcdef", "ANTHROPIC_API_KEY=sk-ant-AUDIT0123456789", "AUDIT_PRIVATE_TOKEN=secret-value-42")
	ch := start(t, ws, client.Options{Env: env})
	s := ch.create()
	runID := ch.startTurn(s.SessionID, "print env")
	ev, err := ch.c.WaitEvent(ctxGuard(t), func(e client.Event) bool { return e.Name == wire.EventApprovalRequested })
	if err != nil {
		t.Fatal(err)
	}
	var req struct {
		ApprovalID string `json:"approval_id"`
	}
	_ = ev.Decode(&req)
	if !uuidRE.MatchString(req.ApprovalID) {
		t.Errorf("approval_id %q is not a UUID", req.ApprovalID)
	}
	ch.result("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": req.ApprovalID, "allow": true}, nil)
	r := ch.collect(runID)
	if r.finished.Outcome != "completed" {
		t.Fatalf("run.finished %+v", r.finished)
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
	ch.shutdown()
}

// TestShutdownDuringRun: shutdown "Cancels ... active turn ..., then
// drains output"; a run.finished, if delivered, is cancelled; exit 0 with
// empty stderr, and the stored turn is readable in a new child.
func TestShutdownDuringRun(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "", []step{text(strings.Repeat("working ", 100)), sleepMs(600_000), text("never")})
	ch := start(t, ws, client.Options{})
	s := ch.create()
	runID := ch.startTurn(s.SessionID, "long")
	if _, err := ch.c.WaitEvent(ctxGuard(t), func(e client.Event) bool { return e.Name == wire.EventMessageDelta }); err != nil {
		t.Fatal(err)
	}
	r := ch.call("shutdown", nil)
	if r.Error != nil || string(r.Result) != `{"state":"stopping"}` {
		t.Fatalf("shutdown: %s", r.Raw)
	}
	var fin *runFinished
	for ev := range ch.c.Events() {
		if ev.RunID != runID {
			t.Errorf("event of run %q", ev.RunID)
		}
		if fin != nil {
			t.Errorf("event %s after run.finished", ev.Name)
		}
		if ev.Name == wire.EventRunFinished {
			fin = &runFinished{}
			_ = ev.Decode(fin)
		}
	}
	ch.wantExit(0)
	if fin != nil && fin.Outcome != "cancelled" {
		t.Errorf("run.finished after shutdown: %+v; want cancelled", *fin)
	}
	ch2 := start(t, ws, client.Options{})
	o := ch2.open(s.SessionID)
	es, _, _ := ch2.history(s.SessionID, o.Revision)
	if len(es) == 0 || es[0].Kind != "user" || es[0].Text != "long" {
		t.Errorf("history after shutdown mid-run: %v", kinds(es))
	}
	ch2.shutdown()
}

// TestManyEntriesPaging: "History page: ... at most 100 entries";
// "complete=true only on last page"; cursor and message IDs follow the
// 64-byte ID grammar; 60 turns are 120 entries, so at least two pages.
func TestManyEntriesPaging(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "")
	ch := start(t, ws, client.Options{})
	s := ch.create()
	var rev string
	for range 60 {
		r := ch.turn(s.SessionID, "again")
		rev = *r.finished.Revision
	}
	if !idGrammar.MatchString(rev) {
		t.Errorf("revision %q outside the ID grammar", rev)
	}
	es, complete, pages := ch.history(s.SessionID, rev)
	if len(es) != 120 || !complete || pages < 2 {
		t.Errorf("%d entries, complete %v, %d pages; want 120, true, >= 2", len(es), complete, pages)
	}
	for i, e := range es {
		want := map[bool]string{true: "user", false: "assistant"}[i%2 == 0]
		if e.Kind != want {
			t.Fatalf("entry %d kind %s; want %s (stored order)", i, e.Kind, want)
		}
	}
	ch.shutdown()
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
	s := ch.create()
	r := ch.turn(s.SessionID, "many segments")
	segments := map[string]bool{}
	for _, ev := range r.events {
		if ev.Name == wire.EventMessageReconcile {
			var te textEvent
			_ = ev.Decode(&te)
			segments[te.MessageID] = true
		}
	}
	if r.finished.Outcome != "failed" || deref(r.finished.ErrorCode) != "content_limit" {
		t.Errorf("run.finished %+v after %d reconciled segments; want failed with content_limit", r.finished, len(segments))
	}
	t.Logf("run.finished %+v, %d segments, %d events", r.finished, len(segments), len(r.events))
	if len(segments) > 512 {
		t.Errorf("%d segments reconciled; at most 512", len(segments))
	}
	ch.shutdown()
}

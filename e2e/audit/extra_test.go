package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// TestMoreStartupFailures: credential and profile readiness are checked
// locally at startup ("Provider readiness checks supported selection and
// available authentication locally, including ... expiry/refreshability";
// profiles use "the shared Mission Control policy"), each failing with its
// startup code.
func TestMoreStartupFailures(t *testing.T) {
	t.Parallel()
	openai := "provider = \"openai\"\nmodel = \"gpt-x\"\n[providers.openai]\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key_env = \"AUDIT_UNSET_KEY\"\n"
	anthropic := "provider = \"anthropic\"\nmodel = \"claude-x\"\n[providers.anthropic]\nbase_url = \"http://127.0.0.1:9\"\napi_key_env = \"AUDIT_UNSET_KEY\"\n"
	cases := []struct {
		name, settings string
		files          map[string]string // relative to MC_HOME
		mode           os.FileMode
		code           string
	}{
		{"expired oauth without refresh token", anthropic, map[string]string{"auth.json": `{"anthropic":{"type":"oauth","access_token":"at","expires_at":"2001-01-01T00:00:00Z"}}`}, 0o600, "provider_unavailable"},
		{"auth.json readable by others", openai, map[string]string{"auth.json": `{"openai":{"type":"api_key","key":"k"}}`}, 0o644, "provider_unavailable"},
		{"profile without description", clienttest.FixtureSettings, map[string]string{"agents/rev.md": "---\nname: rev\n---\nbody\n"}, 0o600, "profile_invalid"},
		{"unknown primary agent", clienttest.FixtureSettings + "agent = \"nosuch\"\n", nil, 0o600, "profile_invalid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := clienttest.NewWorkspace(t, tc.settings)
			for name, content := range tc.files {
				p := filepath.Join(ws.Home, name)
				ws.WriteFile(t, p, content)
				if err := os.Chmod(p, tc.mode); err != nil {
					t.Fatal(err)
				}
			}
			ch := spawn(t, ws, client.Options{})
			ch.WantError("initialize", map[string]any{"required_capabilities": []string{}}, protocol.Code(tc.code))
			if st := ch.Status(); st.State != "failed" || st.Readiness != tc.code {
				t.Errorf("status %+v", st)
			}
			ch.Shutdown()
		})
	}
	// The positive control: a valid api_key entry makes openai ready.
	ws := clienttest.NewWorkspace(t, openai)
	ws.WriteFile(t, filepath.Join(ws.Home, "auth.json"), `{"openai":{"type":"api_key","key":"k"}}`)
	ch := start(t, ws, client.Options{})
	ch.Shutdown()
}

// TestRedaction: "message.delta: best-effort redacted append";
// "Failure/cancellation keeps redacted partial replies"; "Reconcile before
// redacting and chunking; sanitize all projections"; summaries are bounded
// "after redaction". A provider reply carrying an API key, split across
// two deltas, never shows the key in any frame or history page.
func TestRedaction(t *testing.T) {
	t.Parallel()
	const tail = "AUDITsecret0123456789abcdefghijKLMNOP"
	ws := fixtureWorkspace(t, "", "", []step{text("the key is sk-proj-"), text(tail), text(" and that is all")})
	ch := start(t, ws, client.Options{RecordFrames: true})
	s := ch.Create()
	r := ch.Turn(s.SessionID, "leak something")
	got := r.Reply()
	es, _, _ := ch.HistoryNoCursor(s.SessionID, *r.Finished.Revision)
	ch.Shutdown()
	for _, f := range ch.C.Frames() {
		if strings.Contains(string(f.Raw), tail[:16]) {
			t.Errorf("frame carries the secret: %s", f.Raw)
		}
	}
	if !strings.Contains(got, "the key is") || !strings.Contains(got, "and that is all") {
		t.Errorf("reconciled reply %q lost its non-secret text", got)
	}
	t.Logf("reply %q, %d history entries", got, len(es))
}

// TestSummaryBounds: "approval.requested: safe summary at most 1024 bytes";
// "activity ... summary at most 1024 UTF-8 bytes; no raw params/results";
// summaries are redacted. A 6 KB command of multi-byte text with a secret
// in the middle.
func TestSummaryBounds(t *testing.T) {
	t.Parallel()
	const secret = "sk-AUDITcmdSECRET0123456789abcdefgh"
	cmd := "echo " + strings.Repeat("é中", 10) + " " + secret + " " + strings.Repeat("🙂é中x", 500) + " > /dev/null"
	ws := fixtureWorkspace(t, "ask", "", []step{shell(cmd)}, []step{text("ok")})
	ch := start(t, ws, client.Options{RecordFrames: true})
	s := ch.Create()
	runID, adm := ch.StartTurn(s.SessionID, "long command")
	var evs []client.Event
	ev := ch.UntilNamed(&evs, runID, protocol.EventApprovalRequested)
	var req struct {
		ApprovalID string `json:"approval_id"`
		Summary    string `json:"summary"`
	}
	_ = ev.Decode(&req)
	ch.Result("approval.answer", map[string]any{"session_id": s.SessionID, "run_id": runID, "approval_id": req.ApprovalID, "allow": true}, nil)
	r := ch.Finish(s.SessionID, runID, adm, evs)
	ch.Shutdown()
	check := func(what, summary string) {
		if len(summary) > protocol.SummaryBytes || !utf8.ValidString(summary) {
			t.Errorf("%s summary: %d bytes, valid UTF-8 %v", what, len(summary), utf8.ValidString(summary))
		}
		if strings.Contains(summary, secret[:12]) {
			t.Errorf("%s summary carries the secret: %q", what, summary)
		}
	}
	check("approval.requested", req.Summary)
	for _, ev := range r.Events {
		if ev.Name == protocol.EventActivity {
			var a struct{ Summary string }
			_ = ev.Decode(&a)
			check("activity", a.Summary)
		}
	}
	for _, f := range ch.C.Frames() {
		if strings.Contains(string(f.Raw), secret[:12]) {
			t.Errorf("frame carries the secret: %.300s", f.Raw)
		}
	}
}

// TestShutdownDuringOpen: shutdown "resolves a pending ... session
// request with ... operation_cancelled": the pending session.open is
// answered (operation_cancelled, or its result if it finished first) and
// the child exits 0. The open reads a ~40 MB session so that it is very
// likely still pending; either answer is accepted, a missing one is not.
func TestShutdownDuringOpen(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "")
	id := durable(t, ws, "big")
	b, err := os.ReadFile(clienttest.SessionFile(ws.Home, id))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	var w strings.Builder
	w.WriteString(lines[0])
	var tr string
	for _, l := range lines {
		if strings.Contains(l, `"type":"input"`) {
			w.WriteString(l)
			tr = `{"type":"tool_result","session_id":"` + id + `","run_id":"` + runIDOf(l) + `","text":"` + strings.Repeat("x", 4000) + `","call_id":"c"}` + "\n"
		}
	}
	for range 10_000 {
		w.WriteString(tr)
	}
	if err := os.WriteFile(clienttest.SessionFile(ws.Home, id), []byte(w.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ch := start(t, ws, client.Options{})
	open := `{"protocol":"magi-code.local-agent","version":1,"id":"op","method":"session.open","params":{"session_id":"` + id + `"}}` + "\n"
	st := `{"protocol":"magi-code.local-agent","version":1,"id":"st","method":"status","params":{}}` + "\n"
	bye := `{"protocol":"magi-code.local-agent","version":1,"id":"bye","method":"shutdown","params":{}}` + "\n"
	if err := ch.C.SendLine([]byte(open + st + bye)); err != nil {
		t.Fatal(err)
	}
	r, err := ch.C.Await(clienttest.Guard(t), "op")
	if err != nil {
		t.Fatalf("the pending session.open got no response after shutdown: %v", err)
	}
	if r.Error != nil && r.Error.Code != "operation_cancelled" {
		t.Errorf("session.open after shutdown: %s; want operation_cancelled (or its result)", r.Raw)
	}
	t.Logf("session.open answered %s", r.Raw[:min(len(r.Raw), 200)])
	// docs/protocol.md, status: "Selection and session identity reflect the last completed
	// attachment, including during an operation": a status answered before
	// the open completed shows no session.
	sr, err := ch.C.Await(clienttest.Guard(t), "st")
	if err != nil {
		t.Fatal(err)
	}
	var status statusResult
	_ = jsonUnmarshal(sr.Result, &status)
	if sr.Seq < r.Seq && status.SessionID != nil {
		t.Errorf("status during the pending open shows session %s", *status.SessionID)
	}
	if r, err := ch.C.Await(clienttest.Guard(t), "bye"); err != nil || string(r.Result) != `{"state":"stopping"}` {
		t.Errorf("shutdown: %v %v", r, err)
	}
	ch.WantExit(0)
}

// TestExternalMutation: "Keep one history snapshot per attachment; content
// fingerprints and replay generations detect mutation"; "persistence
// degradation must not claim durable history". While a child has the
// session attached, someone else changes its file (same inode): cut back
// by two complete lines, or extended by one complete valid line. The next
// turn must neither write a file no child can read nor silently delete
// the other writer's line while claiming durable.
func TestExternalMutation(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"truncated", "appended"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			ws := fixtureWorkspace(t, "", "")
			id := durable(t, ws, "first turn")
			ch := start(t, ws, client.Options{})
			ch.Open(id)
			path := clienttest.SessionFile(ws.Home, id)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
			var changed string
			const external = "EXTERNAL-WRITER-LINE"
			switch how {
			case "truncated":
				changed = strings.Join(lines[:len(lines)-2], "")
			case "appended":
				var input string
				for _, l := range lines {
					if strings.Contains(l, `"type":"input"`) {
						input = l
					}
				}
				extra := strings.Replace(input, `"text":"first turn"`, `"text":"`+external+`"`, 1)
				extra = strings.Replace(extra, `"message_id":"`, `"message_id":"ext-`, 1)
				changed = string(b) + extra
			}
			// os.WriteFile keeps the inode (O_TRUNC): the child's open file sees it.
			if err := os.WriteFile(path, []byte(changed), 0o600); err != nil {
				t.Fatal(err)
			}
			r := ch.Turn(id, "second turn")
			t.Logf("turn after the external change: %+v", r.Finished)
			ch.Shutdown()
			after, _ := os.ReadFile(path)
			if strings.ContainsRune(string(after), 0) {
				t.Errorf("the session file now holds NUL bytes (an append past the end of the shortened file), yet run.finished said %s", r.Finished.Persistence)
			}
			if how == "appended" && r.Finished.Persistence == "durable" && !strings.Contains(string(after), external) {
				t.Errorf("the other writer's complete line was silently removed while the run claimed durable")
			}
			ch2 := start(t, ws, client.Options{})
			if r := ch2.Call("session.open", map[string]string{"session_id": id}); r.Error != nil {
				t.Errorf("session.open after the turn: %s; the append corrupted the session", r.Error.Code)
			}
			ch2.Shutdown()
		})
	}
}

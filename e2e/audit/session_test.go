package audit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// rawCall sends one request frame whose params are raw JSON and returns the
// response.
func (ch *child) rawCall(id, method, params string) *client.Response {
	ch.T.Helper()
	line := `{"protocol":"magi-code.local-agent","version":1,"id":` + clienttest.Quote(id) + `,"method":` + clienttest.Quote(method) + `,"params":` + params + "}\n"
	if err := ch.C.SendLine([]byte(line)); err != nil {
		ch.T.Fatal(err)
	}
	r, err := ch.C.Await(clienttest.Guard(ch.T), id)
	if err != nil {
		ch.T.Fatalf("%s %s: %v", method, id, err)
	}
	return r
}

// TestParamsStrict: "Params reject unknown/duplicate fields" for every
// session, history and turn operation; session IDs follow
// "[A-Za-z0-9_-]+, at most 64 ASCII bytes"; "Cursor max 64 ASCII bytes";
// docs/protocol.md, Choices: params outside their grammar are invalid_params. With a session
// attached so that only the params can be wrong. Also "Duplicate IDs get
// duplicate_id and never reexecute work": a repeated turn.start ID starts
// no second run.
func TestParamsStrict(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "")
	ch := start(t, ws, client.Options{})
	s := ch.Create()
	sid := clienttest.Quote(s.SessionID)
	rev := clienttest.Quote(s.Revision)
	long := strings.Repeat("a", 65)
	cases := []struct{ name, method, params string }{
		{"create: null", "session.create", `null`},
		{"open: unknown field", "session.open", `{"session_id":` + sid + `,"x":1}`},
		{"open: duplicate field", "session.open", `{"session_id":` + sid + `,"session_id":` + sid + `}`},
		{"open: missing field", "session.open", `{}`},
		{"open: number", "session.open", `{"session_id":7}`},
		{"open: 65 bytes", "session.open", `{"session_id":` + clienttest.Quote(long) + `}`},
		{"open: dot", "session.open", `{"session_id":"a.b"}`},
		{"open: empty", "session.open", `{"session_id":""}`},
		{"page: unknown field", "history.page", `{"session_id":` + sid + `,"revision":` + rev + `,"cursor":null,"x":1}`},
		{"page: duplicate cursor", "history.page", `{"session_id":` + sid + `,"revision":` + rev + `,"cursor":null,"cursor":null}`},
		{"page: missing revision", "history.page", `{"session_id":` + sid + `}`},
		{"page: cursor 65 bytes", "history.page", `{"session_id":` + sid + `,"revision":` + rev + `,"cursor":` + clienttest.Quote(long) + `}`},
		{"page: cursor grammar", "history.page", `{"session_id":` + sid + `,"revision":` + rev + `,"cursor":"a/b"}`},
		{"page: cursor number", "history.page", `{"session_id":` + sid + `,"revision":` + rev + `,"cursor":1}`},
		{"page: revision 65 bytes", "history.page", `{"session_id":` + sid + `,"revision":` + clienttest.Quote(long) + `}`},
		{"turn: unknown field", "turn.start", `{"session_id":` + sid + `,"prompt":"hi","x":1}`},
		{"turn: duplicate prompt", "turn.start", `{"session_id":` + sid + `,"prompt":"hi","prompt":"hi"}`},
		{"turn: prompt not a string", "turn.start", `{"session_id":` + sid + `,"prompt":["hi"]}`},
		{"turn: missing prompt", "turn.start", `{"session_id":` + sid + `}`},
		{"turn: empty prompt", "turn.start", `{"session_id":` + sid + `,"prompt":""}`},
		{"cancel: unknown field", "turn.cancel", `{"session_id":` + sid + `,"run_id":"r","x":1}`},
		{"cancel: missing run", "turn.cancel", `{"session_id":` + sid + `}`},
		{"answer: allow not a bool", "approval.answer", `{"session_id":` + sid + `,"run_id":"r","approval_id":"a","allow":"yes"}`},
		{"answer: missing allow", "approval.answer", `{"session_id":` + sid + `,"run_id":"r","approval_id":"a"}`},
		{"answer: duplicate allow", "approval.answer", `{"session_id":` + sid + `,"run_id":"r","approval_id":"a","allow":false,"allow":true}`},
	}
	for i, tc := range cases {
		r := ch.rawCall(fmt.Sprintf("p%d", i), tc.method, tc.params)
		if r.Error == nil || r.Error.Code != "invalid_params" {
			t.Errorf("%s: %s; want invalid_params", tc.name, r.Raw)
		}
	}
	// The cursor may be omitted.
	if r := ch.rawCall("omit", "history.page", `{"session_id":`+sid+`,"revision":`+rev+`}`); r.Error != nil {
		t.Errorf("history.page without cursor: %s", r.Raw)
	}

	// A prompt of exactly 16,384 UTF-8 bytes of two-byte runes is admitted.
	if r := ch.Call("turn.start", map[string]string{"session_id": s.SessionID, "prompt": strings.Repeat("é", protocol.MaxPromptBytes/2)}); r.Error != nil {
		t.Errorf("turn.start with a 16,384-byte prompt: %s", r.Error.Code)
	} else {
		var adm struct {
			RunID string `json:"run_id"`
		}
		_ = jsonUnmarshal(r.Result, &adm)
		ch.Finish(s.SessionID, adm.RunID, r, nil)
	}

	// A repeated turn.start ID: duplicate_id, no second run.
	r := ch.rawCall("t1", "turn.start", `{"session_id":`+sid+`,"prompt":"once"}`)
	if r.Error != nil {
		t.Fatalf("turn.start: %s", r.Raw)
	}
	var adm struct {
		RunID string `json:"run_id"`
	}
	if err := jsonUnmarshal(r.Result, &adm); err != nil || !uuidRE.MatchString(adm.RunID) {
		t.Errorf("run_id %q is not a UUID (docs/protocol.md, IDs: UUID run IDs)", adm.RunID)
	}
	ch.Finish(s.SessionID, adm.RunID, r, nil)
	if r := ch.rawCall("t1", "turn.start", `{"session_id":`+sid+`,"prompt":"twice"}`); r.Error == nil || r.Error.Code != "duplicate_id" {
		t.Errorf("repeated turn.start ID: %s", r.Raw)
	}
	if st := ch.Status(); st.State != "idle" || st.RunID != nil {
		t.Errorf("status after a duplicate turn.start: %+v", st)
	}
	select {
	case ev := <-ch.C.Events():
		t.Errorf("event %s after a duplicate turn.start", ev.Name)
	default:
	}
	ch.Shutdown()
}

// copySession writes the session file of id under newID, replacing every
// occurrence of id, then applies edits (old, new pairs) to the bytes.
func copySession(t *testing.T, home, id, newID string, edits ...string) {
	t.Helper()
	b, err := os.ReadFile(clienttest.SessionFile(home, id))
	if err != nil {
		t.Fatal(err)
	}
	if newID != id {
		b = bytes.ReplaceAll(b, []byte(id), []byte(newID))
	}
	for i := 0; i+1 < len(edits); i += 2 {
		if !bytes.Contains(b, []byte(edits[i])) {
			t.Fatalf("session file of %s lacks %q", id, edits[i])
		}
		b = bytes.ReplaceAll(b, []byte(edits[i]), []byte(edits[i+1]))
	}
	if err := os.WriteFile(clienttest.SessionFile(home, newID), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestStoredSessionChecks: session.open of stored files that break the
// protocol's read rules. "Stored reads reject ... mismatched event session
// IDs"; "Fixed-workspace resume requires every nonempty recorded cwd to be
// absolute and canonicalize to canonical child cwd; missing recorded path
// fails cwd_mismatch; absent older metadata yields cwd_unverified notice";
// "Reasoning summaries require explicit stored provider_summary=true
// provenance; missing/false provenance is omitted"; "Unavailable selection
// retains startup selection ... with saved_selection_unavailable".
func TestStoredSessionChecks(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "auto", "",
		[]step{{"reasoning_summary": "AUDIT-SUMMARY"}, text("first segment"), tool("list_dir", map[string]any{"path": "."})},
		[]step{text("second segment")})
	id := durable(t, ws, "hello stored")
	cwd, err := filepath.EvalSymlinks(ws.Cwd)
	if err != nil {
		t.Fatal(err)
	}
	cwdField := `"cwd":` + clienttest.Quote(cwd)

	// The file renamed, its records still naming id.
	if b, err := os.ReadFile(clienttest.SessionFile(ws.Home, id)); err != nil || os.WriteFile(clienttest.SessionFile(ws.Home, "copied-name"), b, 0o600) != nil {
		t.Fatal("copying the session file")
	}
	copySession(t, ws.Home, id, "summary-false", `"provider_summary":true`, `"provider_summary":false`)
	copySession(t, ws.Home, id, "summary-missing", `,"provider_summary":true`, ``)
	copySession(t, ws.Home, id, "relative-cwd", cwdField, `"cwd":"work"`)
	copySession(t, ws.Home, id, "other-cwd", cwdField, `"cwd":`+clienttest.Quote(filepath.Dir(cwd)))
	copySession(t, ws.Home, id, "older-header", `"version":2,`+cwdField, `"version":1`)
	copySession(t, ws.Home, id, "other-provider", `"provider":"fixture"`, `"provider":"openai"`)

	ch := start(t, ws, client.Options{})
	ch.WantError("session.open", map[string]string{"session_id": "copied-name"}, "session_invalid")
	ch.WantError("session.open", map[string]string{"session_id": "relative-cwd"}, "cwd_mismatch")
	ch.WantError("session.open", map[string]string{"session_id": "other-cwd"}, "cwd_mismatch")

	summaries := func(sid string) int {
		t.Helper()
		o := ch.Open(sid)
		es, complete, _ := ch.HistoryNoCursor(sid, o.Revision)
		if !complete {
			t.Errorf("%s: incomplete projection %v", sid, kinds(es))
		}
		n := 0
		for _, e := range es {
			if e.Kind == "reasoning_summary" {
				n++
			}
		}
		return n
	}
	if n := summaries(id); n != 1 {
		t.Errorf("provider_summary=true: %d reasoning_summary entries; want 1", n)
	}
	for _, sid := range []string{"summary-false", "summary-missing"} {
		if n := summaries(sid); n != 0 {
			t.Errorf("%s: %d reasoning_summary entries; want 0", sid, n)
		}
	}

	o := ch.Open("older-header")
	if !o.Durable || !contains(o.Notices, "cwd_unverified") {
		t.Errorf("open of a header without cwd: %+v; want durable with notice cwd_unverified", o)
	}
	o = ch.Open("other-provider")
	if !contains(o.Notices, "saved_selection_unavailable") {
		t.Errorf("open of a session saved with another provider: notices %v; want saved_selection_unavailable", o.Notices)
	}
	if st := ch.Status(); deref(st.Provider) != "fixture" || deref(st.Model) != "fixture-model" {
		t.Errorf("status after an unavailable saved selection: %+v; want the startup selection", st)
	}
	ch.Shutdown()

	// The recorded cwd no longer exists: the child runs in the renamed
	// directory, so the recorded path is missing.
	moved := cwd + "-moved"
	if err := os.Rename(cwd, moved); err != nil {
		t.Fatal(err)
	}
	ch = start(t, ws, client.Options{Dir: moved})
	ch.WantError("session.open", map[string]string{"session_id": id}, "cwd_mismatch")
	ch.Shutdown()
	if err := os.Rename(moved, cwd); err != nil {
		t.Fatal(err)
	}
	// The same cwd reached through a symlink canonicalizes to the record.
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(cwd, alias); err != nil {
		t.Fatal(err)
	}
	ch = start(t, ws, client.Options{Dir: alias})
	if o := ch.Open(id); !o.Durable || len(o.Notices) != 0 {
		t.Errorf("open through a cwd symlink: %+v", o)
	}
	ch.Shutdown()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestOpenWritesNothing: "Create/open never executes tools or provider
// generation, fetches a model catalog, or appends placeholder history";
// session.open restores the selection "without writing history/settings";
// "this endpoint adds no pruning sweep" (a 90-day-old session survives a
// child that initializes, opens, pages and runs a turn).
func TestOpenWritesNothing(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "")
	id := durable(t, ws, "keep me as I am")
	old := durable(t, ws, "old one")
	past := time.Now().Add(-90 * 24 * time.Hour)
	if err := os.Chtimes(clienttest.SessionFile(ws.Home, old), past, past); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(ws.Home, "settings.toml")
	before, err := os.ReadFile(clienttest.SessionFile(ws.Home, id))
	if err != nil {
		t.Fatal(err)
	}
	settingsBefore, _ := os.ReadFile(settings)
	stBefore, _ := os.Stat(clienttest.SessionFile(ws.Home, id))

	ch := start(t, ws, client.Options{})
	o := ch.Open(id)
	ch.HistoryNoCursor(id, o.Revision)
	ch.Open(id) // reopen the attached session
	s := ch.Create()
	ch.Turn(s.SessionID, "another session")
	ch.Shutdown()

	after, _ := os.ReadFile(clienttest.SessionFile(ws.Home, id))
	stAfter, _ := os.Stat(clienttest.SessionFile(ws.Home, id))
	if !bytes.Equal(before, after) || !stAfter.ModTime().Equal(stBefore.ModTime()) {
		t.Errorf("session.open/history.page changed the session file (%d -> %d bytes)", len(before), len(after))
	}
	if settingsAfter, _ := os.ReadFile(settings); !bytes.Equal(settingsBefore, settingsAfter) {
		t.Errorf("settings changed:\n%s\n->\n%s", settingsBefore, settingsAfter)
	}
	if !clienttest.FileExists(clienttest.SessionFile(ws.Home, old)) {
		t.Error("a 90-day-old session was pruned by serve")
	}
}

// TestHistoryLimits: "Snapshot budget: 8 MiB serialized entry projection,
// at most 10,000 parts; exceeding it → history_limit, not a fake complete
// page"; "Stored history read: 64 MiB original JSONL bytes, at most
// 100,000 lines"; over-budget sessions are rejected explicitly
// (history_limit) at open or at the first page.
func TestHistoryLimits(t *testing.T) {
	t.Parallel()
	ws := fixtureWorkspace(t, "", "")
	id := durable(t, ws, "base")
	b, err := os.ReadFile(clienttest.SessionFile(ws.Home, id))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	var assistant string
	for _, l := range lines {
		if strings.Contains(l, `"type":"assistant"`) {
			assistant = l
		}
	}
	if assistant == "" {
		t.Fatalf("no assistant record in %s", b)
	}
	// body builds a session from the header and input, then extra lines,
	// then the run's completion.
	write := func(name string, extra func(w *strings.Builder)) {
		var w strings.Builder
		for _, l := range lines {
			if strings.Contains(l, `"type":"assistant"`) || strings.Contains(l, `"type":"run_completed"`) {
				continue
			}
			w.WriteString(strings.ReplaceAll(l, id, name))
		}
		extra(&w)
		for _, l := range lines {
			if strings.Contains(l, `"type":"run_completed"`) {
				w.WriteString(strings.ReplaceAll(l, id, name))
			}
		}
		if err := os.WriteFile(clienttest.SessionFile(ws.Home, name), []byte(w.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	echo := `"text":"echo: base"`
	if !strings.Contains(assistant, echo) {
		t.Fatalf("assistant record %s", assistant)
	}
	msgID := func(l string) string {
		i := strings.Index(l, `"message_id":"`) + len(`"message_id":"`)
		return l[i : i+strings.IndexByte(l[i:], '"')]
	}(assistant)
	seg := func(i int, text string) string {
		l := strings.ReplaceAll(assistant, id, "@@")
		l = strings.Replace(l, msgID, fmt.Sprintf("seg-%d", i), 1)
		return strings.Replace(l, echo, `"text":`+clienttest.Quote(text), 1)
	}
	write("big-text", func(w *strings.Builder) {
		w.WriteString(strings.ReplaceAll(seg(0, strings.Repeat("a", 9<<20)), "@@", "big-text"))
	})
	write("many-parts", func(w *strings.Builder) {
		for i := range 10_001 {
			w.WriteString(strings.ReplaceAll(seg(i, "p"), "@@", "many-parts"))
		}
	})
	write("many-lines", func(w *strings.Builder) {
		// 100,001 replay-only lines: no entry, but over the line cap.
		tr := `{"type":"tool_result","session_id":"many-lines","run_id":"` + runIDOf(assistant) + `","text":"x","call_id":"c"}` + "\n"
		for range 100_001 {
			w.WriteString(tr)
		}
	})
	ch := start(t, ws, client.Options{})
	for _, name := range []string{"big-text", "many-parts", "many-lines"} {
		r := ch.Call("session.open", map[string]string{"session_id": name})
		if r.Error != nil {
			if r.Error.Code != "history_limit" {
				t.Errorf("open %s: %s; want history_limit", name, r.Error.Code)
			}
			continue
		}
		var o clienttest.SessionResult
		_ = jsonUnmarshal(r.Result, &o)
		p := ch.Call("history.page", map[string]any{"session_id": name, "revision": o.Revision, "cursor": nil})
		if p.Error == nil || p.Error.Code != "history_limit" {
			t.Errorf("%s: opened (%s) and paged %.300s; want history_limit", name, r.Result, p.Raw)
		}
	}
	ch.Shutdown()
}

func runIDOf(l string) string {
	i := strings.Index(l, `"run_id":"`) + len(`"run_id":"`)
	return l[i : i+strings.IndexByte(l[i:], '"')]
}

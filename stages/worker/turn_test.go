package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/runner"
	"github.com/magi-code/magi-code/stages/dispatch"
	"github.com/magi-code/magi-code/stages/wire"
)

// startedPool initializes a pool against a temporary MC_HOME with the
// fixture provider and the given script, and attaches a new session.
func startedPool(t *testing.T, script, extra string) (*Pool, chan wire.Event, string) {
	t.Helper()
	root := t.TempDir()
	home, cwd := filepath.Join(root, "home"), filepath.Join(root, "work")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	settings := "provider = \"fixture\"\n"
	if script != "" {
		path := filepath.Join(root, "script.json")
		if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
		settings += "[providers.fixture]\nscript = \"" + path + "\"\n"
	}
	settings += extra
	if err := os.WriteFile(filepath.Join(home, "settings.toml"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	p, q := newTestPool(t)
	p.opts.Env = runner.Env{MCHome: home, Cwd: cwd}
	// The queue closes after the workers end (their last act may be to
	// offer run.finished).
	t.Cleanup(func() {
		waitPool(t, p)
		p.Teardown(context.Background())
		q.Close()
	})

	initDone := make(chan dispatch.InitDone, 1)
	p.StartInit(context.Background(), nil, func(d dispatch.InitDone) { initDone <- d })
	if d := <-initDone; d.Code != "" || d.Sel.Provider != "fixture" || d.Sel.Model != "fixture-model" || len(d.Sel.ContextID) != 64 {
		t.Fatalf("init = %+v; want ready fixture/fixture-model with a context ID", d)
	}
	opDone := make(chan dispatch.OpDone, 1)
	p.StartOp(context.Background(), dispatch.StartOp{ID: "r", Op: dispatch.OpCreate}, func(d dispatch.OpDone) { opDone <- d })
	d := <-opDone
	if d.Code != "" || d.Attached == "" {
		t.Fatalf("create = %+v", d)
	}
	// Forward events to a plain channel the tests read at their pace.
	events := make(chan wire.Event, 1<<16)
	go func() {
		for e := range q.C() {
			events <- e
		}
		close(events)
	}()
	return p, events, d.Attached
}

// waitPool waits for the pool's workers after a test, at most 30 s: a turn
// that never finishes fails the test with that instead of holding it.
func waitPool(t *testing.T, p *Pool) {
	t.Helper()
	done := make(chan struct{})
	go func() { p.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Errorf("the pool's workers did not end within 30 s of the test's end (a turn that never finished)")
	}
}

// runTurn runs one turn and returns its events up to run.finished.
func runTurn(t *testing.T, p *Pool, events chan wire.Event, sessionID, prompt string) []wire.Event {
	t.Helper()
	done := make(chan struct{})
	p.StartTurn(context.Background(), "run-"+prompt[:1], dispatch.TurnParams{SessionID: sessionID, Prompt: prompt}, func() { close(done) })
	var got []wire.Event
	timeout := time.After(30 * time.Second) // hang guard only
	for {
		select {
		case e := <-events:
			got = append(got, e)
			if e.Name == protocol.EventRunFinished {
				<-done
				return got
			}
		case <-timeout:
			t.Fatalf("no run.finished; got %d events", len(got))
		}
	}
}

func reconciled(evs []wire.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Name == protocol.EventMessageReconcile {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func TestTurnEventOrderAndReconcile(t *testing.T) {
	big := strings.Repeat("😀漢\x01", 2000) // 16,000 bytes: several 4,000-byte parts
	script := `{"responses":[{"steps":[{"text":"hello "},{"text":"` + strings.ReplaceAll(big, "\x01", `\u0001`) + `"}]}]}`
	p, events, sid := startedPool(t, script, "")
	evs := runTurn(t, p, events, sid, "hi")

	if evs[0].Name != protocol.EventInputPersisted || evs[0].Revision == "" {
		t.Fatalf("first event = %+v; want input.persisted with a revision", evs[0])
	}
	last := evs[len(evs)-1]
	if last.Outcome != "completed" || last.Persistence != "durable" || !last.HasRevision || last.ErrorCode != "" {
		t.Fatalf("run.finished = %+v", last)
	}
	if got, want := reconciled(evs), "hello "+big; got != want {
		t.Fatalf("reconcile text differs: %d bytes; want %d", len(got), len(want))
	}
	for _, e := range evs {
		if e.SessionID != sid || e.RunID != "run-h" {
			t.Fatalf("event %s without its session/run ID", e.Name)
		}
		if len(e.Text) > protocol.LiveChunkBytes || !strings.HasPrefix(e.Text, "") {
			t.Fatalf("%s part of %d bytes", e.Name, len(e.Text))
		}
	}
	// The revision of run.finished pages the history of the turn.
	a := p.attachment()
	page, code := a.Page(last.Revision, nil)
	if code != "" || !strings.Contains(string(page), `"complete":true`) {
		t.Fatalf("page = %s, %q", page, code)
	}
}

func TestTurnEchoSecondTurnAndRedaction(t *testing.T) {
	p, events, sid := startedPool(t, `{"responses":[{"steps":[{"text":"key: sk-proj-"},{"text":"abcdefghijklmnopqrstuvwxyz0123456789ABCD done"}]}]}`, "")
	evs := runTurn(t, p, events, sid, "first")
	for _, e := range evs {
		if strings.Contains(e.Text, "abcdefghijklmnop") {
			t.Fatalf("%s leaked a secret split across deltas: %q", e.Name, e.Text)
		}
	}
	if got := reconciled(evs); !strings.Contains(got, "[REDACTED]") || !strings.HasSuffix(got, " done") {
		t.Fatalf("reconcile = %q; want the key redacted", got)
	}
	// The script is exhausted: the fixture echoes the last prompt.
	evs = runTurn(t, p, events, sid, "second prompt")
	if got := reconciled(evs); got != "echo: second prompt" {
		t.Fatalf("second turn reconcile = %q", got)
	}
}

func TestTurnDeniedApprovalNeverRuns(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	script := `{"responses":[{"steps":[{"tool_call":{"name":"shell","arguments":{"command":"touch ` + marker + `"}}}]},{"steps":[{"text":"ok"}]}]}`
	p, events, sid := startedPool(t, script, "[tools]\napproval = \"ask\"\n")
	done := make(chan struct{})
	p.StartTurn(context.Background(), "run-1", dispatch.TurnParams{SessionID: sid, Prompt: "go"}, func() { close(done) })
	var states []string
	for e := range events {
		switch e.Name {
		case protocol.EventApprovalRequested:
			code, deliver := p.Answer(dispatch.AnswerParams{SessionID: sid, RunID: "run-1", ApprovalID: e.ApprovalID, Allow: false})
			if code != "" {
				t.Fatalf("answer = %q", code)
			}
			if code, _ := p.Answer(dispatch.AnswerParams{SessionID: sid, RunID: "run-1", ApprovalID: e.ApprovalID, Allow: true}); code != protocol.CodeStaleApproval {
				t.Fatalf("second answer = %q; want stale_approval", code)
			}
			deliver()
		case protocol.EventActivity:
			states = append(states, e.State)
		}
		if e.Name == protocol.EventRunFinished {
			break
		}
	}
	<-done
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("denied shell command ran (marker: %v)", err)
	}
	if strings.Join(states, ",") != "started,failed" {
		t.Fatalf("activity states = %v; want started,failed", states)
	}
}

func TestTurnCancelDuringSleep(t *testing.T) {
	// Longer than the redactor's 256-byte holdback, so a delta is emitted
	// before the provider sleeps.
	partial := strings.Repeat("partial ", 64)
	p, events, sid := startedPool(t, `{"responses":[{"steps":[{"text":"`+partial+`"},{"sleep_ms":600000}]}]}`, "")
	done := make(chan struct{})
	p.StartTurn(context.Background(), "run-1", dispatch.TurnParams{SessionID: sid, Prompt: "go"}, func() { close(done) })
	var evs []wire.Event
	for e := range events {
		evs = append(evs, e)
		if e.Name == protocol.EventMessageDelta {
			p.CancelRun("run-1")
		}
		if e.Name == protocol.EventRunFinished {
			break
		}
	}
	<-done
	last := evs[len(evs)-1]
	if last.Outcome != "cancelled" || last.Persistence != "durable" {
		t.Fatalf("run.finished = %+v; want cancelled/durable", last)
	}
	if got := reconciled(evs); got != partial {
		t.Fatalf("reconcile = %q; want the partial reply kept", got)
	}
	for _, e := range evs {
		if e.Name == protocol.EventMessageReconcile && !e.Partial {
			t.Fatal("reconcile of a cancelled segment not marked partial")
		}
	}
}

// A child that dies mid-reply leaves the streamed text it stored as chunks:
// reopened, the history shows it as a partial reply of an interrupted turn.
func TestCrashMidReplyKeepsStoredChunks(t *testing.T) {
	long := strings.Repeat("word ", 8000) // 8,000 deltas, 40,000 bytes: two stored chunks
	p, events, sid := startedPool(t, `{"responses":[{"steps":[{"text":"word ","repeat":8000},{"sleep_ms":600000}]}]}`, "")
	done := make(chan struct{})
	p.StartTurn(context.Background(), "run-1", dispatch.TurnParams{SessionID: sid, Prompt: "go"}, func() { close(done) })
	for e := range events {
		if e.Name == protocol.EventMessageDelta && e.Part == 0 {
			break
		}
	}
	// The provider sleeps: copy the file as a crash would leave it.
	path := filepath.Join(p.runtime().runner.SessionsDir(), sid+".jsonl")
	var data []byte
	for deadline := time.Now().Add(30 * time.Second); ; { // hang guard only
		data, _ = os.ReadFile(path)
		// Count complete records only: the read may catch the second chunk
		// half written (the torn tail stays in the copy, as a crash leaves it).
		whole := data[:bytes.LastIndexByte(data, '\n')+1]
		if strings.Count(string(whole), `"assistant_chunk"`) >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	p.CancelRun("run-1")
	<-done
	crashed := filepath.Join(t.TempDir(), "sessions")
	if err := os.MkdirAll(crashed, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(crashed, sid+".jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	store := history.NewStore(crashed, p.runtime().runner.Cwd(), time.Now)
	a, _, code := store.Open(sid, nil)
	if code != "" {
		t.Fatalf("open after the crash: %q", code)
	}
	defer a.Close()
	var reply strings.Builder
	kinds := []string{}
	complete := false
	var cursor *string
	for {
		page, code := a.Page(a.Revision(), cursor)
		if code != "" {
			t.Fatalf("page: %q", code)
		}
		var res struct {
			Entries []struct {
				Kind, Text string
				Partial    bool
			} `json:"entries"`
			NextCursor *string `json:"next_cursor"`
			Complete   bool    `json:"complete"`
		}
		if err := json.Unmarshal(page, &res); err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Entries {
			kinds = append(kinds, e.Kind)
			if e.Kind == "assistant" {
				if !e.Partial {
					t.Fatal("the interrupted reply is not marked partial")
				}
				reply.WriteString(e.Text)
			}
		}
		complete = res.Complete
		if res.NextCursor == nil {
			break
		}
		cursor = res.NextCursor
	}
	if !slices.Contains(kinds, "diagnostic") {
		t.Fatalf("kinds %v; want the interrupted turn's diagnostic", kinds)
	}
	if complete || reply.Len() < 2*history.ChunkBytes || !strings.HasPrefix(long, reply.String()) {
		t.Fatalf("complete=%v kinds=%v, %d bytes of reply kept; want the stored chunks as a partial reply", complete, kinds, reply.Len())
	}
}

// TestLongReplyStoredOnceInChunks: a segment longer than a chunk is stored
// once, as chunks (the last one at the segment's end) plus a completion
// record without text; history and the provider replay read it whole.
func TestLongReplyStoredOnceInChunks(t *testing.T) {
	long := strings.Repeat("word ", 8000) // 40,000 bytes: two chunks while streaming, one at the end
	p, events, sid := startedPool(t, `{"responses":[{"steps":[{"text":"word ","repeat":8000}]}]}`, "")
	evs := runTurn(t, p, events, sid, "go")
	if got := reconciled(evs); got != long {
		t.Fatalf("reconciled %d bytes; want %d", len(got), len(long))
	}
	data, err := os.ReadFile(filepath.Join(p.runtime().runner.SessionsDir(), sid+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var chunks strings.Builder
	assistant := ""
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct{ Type, Text string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		switch rec.Type {
		case "assistant_chunk":
			chunks.WriteString(rec.Text)
		case "assistant":
			assistant = line
		}
	}
	if chunks.String() != long {
		t.Fatalf("chunks hold %d bytes; want the whole %d-byte reply", chunks.Len(), len(long))
	}
	if assistant == "" || strings.Contains(assistant, `"text"`) {
		t.Fatalf("completion record %q; want one, without a second copy of the text", assistant)
	}
	att := p.attachment()
	recs, code := att.Replay()
	if code != "" {
		t.Fatal(code)
	}
	replayed := ""
	for _, r := range recs {
		if r.Type == history.TypeAssistant {
			replayed += r.Text
		}
	}
	if replayed != long {
		t.Fatalf("replay holds %d bytes of the reply; want %d", len(replayed), len(long))
	}
	page, code := att.Page(att.Revision(), nil)
	if code != "" {
		t.Fatal(code)
	}
	var res struct {
		Entries []struct {
			Kind, Text string
			Partial    bool
		} `json:"entries"`
	}
	if err := json.Unmarshal(page, &res); err != nil {
		t.Fatal(err)
	}
	var paged strings.Builder
	for _, e := range res.Entries {
		if e.Kind == "assistant" {
			if e.Partial {
				t.Fatal("a completed reply stored in chunks reads as partial")
			}
			paged.WriteString(e.Text)
		}
	}
	if !strings.HasPrefix(long, paged.String()) || paged.Len() == 0 {
		t.Fatalf("first page holds %d bytes of assistant text, not a prefix of the reply", paged.Len())
	}
}

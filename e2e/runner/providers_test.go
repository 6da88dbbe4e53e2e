package runner

import (
	"bytes"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// equivalent is the content both providers stream for the same turn.
var equivalent = content{
	before:   []string{"Let me read ", "the notes."},
	toolName: "read_file",
	toolArgs: []string{`{"path":`, ` "notes.txt"}`},
	after:    []string{"The notes say ", "hello."},
}

const notesText = "hello from the notes"

// attempts is how often a provider call is sent before its failure is the
// turn's: once, and retried twice (the SDKs' default).
const attempts = 3

// leaked is a secret an upstream error body quotes; it must reach no frame.
const leaked = "sk-test-leakedLEAKEDleaked0123456789"

// providerRun is what one provider child produced: the normalized events
// of the tool-using turn, and the terminal of each failing turn.
type providerRun struct {
	events   []string
	failures []string
}

// TestProviderFormats streams the same content through an OpenAI-compatible
// endpoint (chat-completions SSE) and an Anthropic one (Messages SSE), each
// in its own child with the real provider, and checks that the protocol
// events are the same modulo IDs; then upstream errors (429, 5xx, 529) and
// streams cut mid-way, which fail with execution_failed and keep the partial
// reply (reconcile partial=true).
func TestProviderFormats(t *testing.T) {
	t.Parallel()
	var mu = make(chan struct{}, 1)
	results := map[string]providerRun{}
	t.Run("group", func(t *testing.T) {
		for _, f := range []format{openaiFormat, anthropicFormat} {
			statuses := []int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable}
			if f.name == "anthropic" {
				statuses = append(statuses, 529)
			}
			t.Run(f.name, func(t *testing.T) {
				t.Parallel()
				pr := runProvider(t, f, statuses)
				mu <- struct{}{}
				results[f.name] = pr
				<-mu
			})
		}
	})
	oa, an := results["openai"], results["anthropic"]
	if len(oa.events) == 0 || len(an.events) == 0 {
		t.Fatal("a provider run failed")
	}
	t.Logf("events of both: %q", oa.events)
	if !slices.Equal(oa.events, an.events) {
		t.Fatalf("the same content gives different events:\nopenai:    %q\nanthropic: %q", oa.events, an.events)
	}
	// The failures common to both formats (all but Anthropic's 529) end the
	// same way.
	an.failures = slices.DeleteFunc(an.failures, func(s string) bool { return strings.HasPrefix(s, "HTTP 529") })
	if !slices.Equal(oa.failures, an.failures) {
		t.Fatalf("failures differ:\nopenai:    %q\nanthropic: %q", oa.failures, an.failures)
	}
}

func runProvider(t *testing.T, f format, statuses []int) providerRun {
	key := "sk-test-" + f.name + "-KEY0123456789abcdef"
	var answers []http.HandlerFunc
	answers = append(answers, f.turn(equivalent)...)
	// Each status fails all three attempts of its turn (the first and two
	// retries).
	for _, code := range statuses {
		for range attempts {
			answers = append(answers, statusAnswer(code, `{"type":"error","error":{"type":"api_error","message":"upstream failed `+leaked+`"}}`))
		}
	}
	answers = append(answers,
		sseAnswer(true, f.partial("partial ans", "wer")...), // the connection drops
		sseAnswer(false, f.partial("early ", "end")...),     // the body ends without a finish
		sseAnswer(false, f.text("still ", "working")...))    // and the child goes on
	llm := newLLMServer(t, answers...)
	ws := clienttest.NewWorkspace(t, f.settings(llm.srv.URL))
	ws.WriteFile(t, filepath.Join(ws.Cwd, "notes.txt"), notesText)
	env := append(ws.Env(), "OPENAI_API_KEY="+key, "ANTHROPIC_API_KEY="+key)
	ch := startChild(t, ws, client.Options{Env: env, RecordFrames: true})
	sid := ch.Create().SessionID

	var pr providerRun
	r := ch.Turn(sid, "read the notes")
	r.WantOutcome(t, "completed", "")
	if got, want := r.Reply(), "Let me read the notes.The notes say hello."; got != want {
		t.Fatalf("reply %q; want %q", got, want)
	}
	checkDeltas(t, r)
	pr.events = normalize(r)
	reqs := llm.recorded()
	if len(reqs) != 2 {
		t.Fatalf("%d provider requests; want 2", len(reqs))
	}
	for i, req := range reqs {
		got := req.Header.Get("Authorization")
		if f.name == "anthropic" {
			got = req.Header.Get("X-Api-Key")
		}
		if !strings.Contains(got, key) {
			t.Fatalf("request %d: the API key was not sent", i)
		}
	}
	// The tool's result reaches the next provider call.
	if res := toolResults(t, reqs[1].Body); len(res) != 1 || !strings.Contains(res[0], notesText) {
		t.Fatalf("tool results in the second request: %q", res)
	}

	for _, code := range statuses {
		before := len(llm.recorded())
		r := ch.Turn(sid, fmt.Sprintf("provoke %d", code))
		r.WantOutcome(t, "failed", string(protocol.CodeExecutionFailed))
		if n := len(llm.recorded()) - before; n != attempts {
			t.Fatalf("HTTP %d: %d requests; want %d (the first and its retries)", code, n, attempts)
		}
		if r.Finished.Persistence != "durable" {
			t.Fatalf("HTTP %d: persistence %s", code, r.Finished.Persistence)
		}
		pr.failures = append(pr.failures, fmt.Sprintf("HTTP %d: %s %q", code, r.Finished.Outcome, r.Reply()))
	}
	for _, c := range []struct{ name, want string }{{"cut", "partial answer"}, {"early end", "early end"}} {
		r := ch.Turn(sid, "stream "+c.name)
		r.WantOutcome(t, "failed", string(protocol.CodeExecutionFailed))
		if len(r.Messages) != 1 || r.Messages[0].Text != c.want || !r.Messages[0].Partial {
			t.Fatalf("%s: reconciled %+v; want %q partial", c.name, r.Messages, c.want)
		}
		pr.failures = append(pr.failures, fmt.Sprintf("%s: %s %q partial", c.name, r.Finished.Outcome, r.Reply()))
		// History keeps the partial reply, before the failure's
		// diagnostic, as the live run showed them.
		entries := ch.history(sid, r)
		reply, last := entries[len(entries)-2], entries[len(entries)-1]
		if reply.Kind != "assistant" || reply.Text != c.want || !reply.Partial || last.Kind != "diagnostic" {
			t.Fatalf("%s: last history entries %+v, %+v", c.name, reply, last)
		}
	}
	r = ch.Turn(sid, "go on")
	r.WantOutcome(t, "completed", "")
	if r.Reply() != "still working" {
		t.Fatalf("reply after failures %q", r.Reply())
	}
	for _, fr := range ch.C.Frames() {
		if bytes.Contains(fr.Raw, []byte("leakedLEAKED")) || bytes.Contains(fr.Raw, []byte(key)) {
			t.Fatalf("frame %d carries a secret: %s", fr.Seq, fr.Raw)
		}
	}
	ch.Shutdown()
	return pr
}

// checkDeltas checks that each message's deltas agree with its reconciled
// text without assuming that none was dropped (deltas are best effort; a
// dropped one spends its part number, so the client sees the gap): every
// delta's text occurs in the reconciled text after the previous delta's,
// immediately after it when no part is missing in between, and a message
// whose deltas start at part 0 with no gap shows a prefix of its text.
func checkDeltas(t testing.TB, r run) {
	t.Helper()
	reconciled := map[string]string{}
	for _, ev := range r.Events {
		if ev.Name == protocol.EventMessageReconcile {
			var te clienttest.TextEvent
			if err := ev.Decode(&te); err != nil {
				t.Fatal(err)
			}
			reconciled[te.MessageID] += te.Text
		}
	}
	next := map[string]int{} // the part that follows the last delta seen
	pos := map[string]int{}  // where that delta ended in the reconciled text
	seen := 0
	for _, ev := range r.Events {
		if ev.Name != protocol.EventMessageDelta {
			continue
		}
		var te clienttest.TextEvent
		if err := ev.Decode(&te); err != nil {
			t.Fatal(err)
		}
		full, ok := reconciled[te.MessageID]
		if !ok {
			t.Fatalf("delta of message %s, which is never reconciled", te.MessageID)
		}
		rest := full[pos[te.MessageID]:]
		i := strings.Index(rest, te.Text)
		switch {
		case i < 0:
			t.Fatalf("delta part %d %q of message %s is not in the rest of its reconciled text %q", te.Part, te.Text, te.MessageID, rest)
		case te.Part == next[te.MessageID] && i != 0:
			t.Fatalf("delta part %d %q of message %s follows the previous part without a gap, but not at once in %q", te.Part, te.Text, te.MessageID, rest)
		}
		pos[te.MessageID] += i + len(te.Text)
		next[te.MessageID] = te.Part + 1
		seen++
	}
	if seen == 0 && r.Reply() != "" {
		t.Fatalf("no delta at all for the reply %q", r.Reply())
	}
}

// normalize renders a run's events without IDs, revisions or best-effort
// deltas: names, kinds, states, summaries, reconcile texts and the
// terminal. Message IDs become their order of appearance.
func normalize(r run) []string {
	var out []string
	ids := map[string]int{}
	for _, ev := range r.Events {
		switch ev.Name {
		case protocol.EventMessageDelta:
			continue
		case protocol.EventMessageReconcile:
			var te clienttest.TextEvent
			_ = ev.Decode(&te)
			if _, ok := ids[te.MessageID]; !ok {
				ids[te.MessageID] = len(ids)
			}
			out = append(out, fmt.Sprintf("reconcile m%d part %d %q last=%v partial=%v", ids[te.MessageID], te.Part, te.Text, te.LastPart, te.Partial))
		case protocol.EventActivity:
			var a clienttest.Activity
			_ = ev.Decode(&a)
			out = append(out, fmt.Sprintf("activity %s %s %s %q", a.Kind, a.State, a.Name, a.Summary))
		case protocol.EventDiagnostic:
			var d struct{ Code, Summary string }
			_ = ev.Decode(&d)
			out = append(out, "diagnostic "+d.Code+" "+d.Summary)
		case protocol.EventRunFinished:
			code := "null"
			if r.Finished.ErrorCode != nil {
				code = *r.Finished.ErrorCode
			}
			out = append(out, fmt.Sprintf("run.finished %s %s %s revision=%v", r.Finished.Outcome, r.Finished.Persistence, code, r.Finished.Revision != nil))
		default:
			out = append(out, ev.Name)
		}
	}
	return out
}

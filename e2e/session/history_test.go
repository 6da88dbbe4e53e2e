package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/internal/ostest"
	"github.com/magi-code/magi-code/protocol"
)

// hardText is about 100 KB of multi-byte text with control characters
// that JSON escapes to six bytes (\u0001...), so that raw and escaped
// budgets both matter.
func hardText() string {
	var b strings.Builder
	unit := "héllo 世界 🙂🚀 \x01\x02\x1f tab\tquote\" back\\ 中文\x0b\x0e 😀 end\n"
	for b.Len() < 100_000 {
		b.WriteString(unit)
	}
	return b.String()
}

// TestHistoryRoundTrip pages through history after a turn whose reply is
// ~100 KB of hard text and checks the parts rejoin byte-exactly, the page
// bounds, complete only on the last page, and the stale/missing codes.
func TestHistoryRoundTrip(t *testing.T) {
	t.Parallel()
	reply := hardText()
	ws := newWorkspace(t, "", response(text(reply)))
	ch := start(t, ws, client.Options{})
	// No attachment yet.
	ch.WantError("history.page", map[string]any{"session_id": "nosuch", "revision": "r1", "cursor": nil}, protocol.CodeSessionMissing)
	s := ch.Create()
	prompt := "round trip 🙂 please"
	r := ch.Turn(s.SessionID, prompt)
	if r.Finished.Outcome != "completed" || r.Finished.Revision == nil {
		t.Fatalf("run.finished %s", r.Events[len(r.Events)-1].Data)
	}
	if r.Reply() != reply {
		t.Fatalf("reconciled reply differs at byte %d", firstDiff(r.Reply(), reply))
	}
	rev := *r.Finished.Revision
	entries, complete, pages := ch.History(s.SessionID, rev)
	if !complete {
		t.Fatal("projection of a completed turn is not complete")
	}
	if pages < 2 {
		t.Fatalf("%d page(s) for ~100 KB of escaped text", pages)
	}
	msgs := messages(entries)
	if len(msgs) != 2 || msgs[0].Kind != "user" || msgs[1].Kind != "assistant" {
		t.Fatalf("history messages %+v", kinds(msgs))
	}
	if msgs[0].Text != prompt || !msgs[0].Done {
		t.Fatalf("user entry %q", msgs[0].Text)
	}
	if msgs[1].Text != reply || !msgs[1].Done || msgs[1].Partial {
		t.Fatalf("assistant entry: %d bytes, differs at %d, done %v, partial %v", len(msgs[1].Text), firstDiff(msgs[1].Text, reply), msgs[1].Done, msgs[1].Partial)
	}

	// The input acknowledgement's revision is stale after the turn.
	if r.Persisted.Revision == rev {
		t.Fatal("input.persisted revision equals run.finished revision")
	}
	ch.WantError("history.page", map[string]any{"session_id": s.SessionID, "revision": r.Persisted.Revision, "cursor": nil}, protocol.CodeStaleRevision)
	ch.WantError("history.page", map[string]any{"session_id": s.SessionID, "revision": "never-issued", "cursor": nil}, protocol.CodeStaleRevision)
	ch.WantError("history.page", map[string]any{"session_id": s.SessionID, "revision": rev, "cursor": "never-issued"}, protocol.CodeStaleRevision)
	ch.WantError("history.page", map[string]any{"session_id": "another-session", "revision": rev, "cursor": nil}, protocol.CodeStaleSession)
}

func kinds(ms []historyMessage) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Kind)
	}
	return out
}

// durableSession runs one turn in a fresh child of ws and shuts it down,
// returning the session ID and the history it showed.
func durableSession(t *testing.T, ws interface{ Env() []string }, start func() *child) (string, []historyMessage) {
	t.Helper()
	ch := start()
	s := ch.Create()
	if s.Durable {
		t.Fatal("session.create: durable before any turn")
	}
	r := ch.Turn(s.SessionID, "make me durable")
	entries, complete, _ := ch.History(s.SessionID, *r.Finished.Revision)
	if !complete {
		t.Fatal("incomplete projection after a completed turn")
	}
	ch.Shutdown()
	return s.SessionID, messages(entries)
}

// TestOpenInNewChild reopens a durable session in a new child and checks
// the open error codes: missing, FIFO, malformed line, other cwd.
func TestOpenInNewChild(t *testing.T) {
	t.Parallel()
	reply := hardText()[:20_000]
	ws := newWorkspace(t, "", response(text(reply)))
	id, before := durableSession(t, ws, func() *child { return start(t, ws, client.Options{}) })

	ch := start(t, ws, client.Options{})
	s := ch.Open(id)
	if !s.Durable || s.SessionID != id || s.Revision == "" {
		t.Fatalf("session.open = %+v", s)
	}
	entries, complete, _ := ch.History(id, s.Revision)
	after := messages(entries)
	if !complete || len(after) != len(before) {
		t.Fatalf("reopened history: complete %v, %v; want %v", complete, kinds(after), kinds(before))
	}
	for i := range before {
		if after[i] != before[i] {
			t.Fatalf("reopened message %d differs: %+v vs %+v", i, after[i].Kind, before[i].Kind)
		}
	}
	if after[1].Text != reply {
		t.Fatal("reopened reply differs")
	}

	sessions := filepath.Join(ws.Home, "sessions")
	// A missing ID.
	ch.WantError("session.open", map[string]string{"session_id": "missing-session"}, protocol.CodeSessionMissing)
	// A FIFO planted as a session file: session_invalid, not a hang (the
	// hang guard of the call is the only clock here).
	ostest.Fifo(t, filepath.Join(sessions, "fifo-session.jsonl"))
	ch.WantError("session.open", map[string]string{"session_id": "fifo-session"}, protocol.CodeSessionInvalid)
	// A symlink to the durable session: not followed.
	if err := os.Symlink(clienttest.SessionFile(ws.Home, id), filepath.Join(sessions, "link-session.jsonl")); err != nil {
		t.Fatal(err)
	}
	ch.WantError("session.open", map[string]string{"session_id": "link-session"}, protocol.CodeSessionInvalid)
	// Failed opens leave the attachment intact.
	if st := ch.Status(); st.SessionID == nil || *st.SessionID != id {
		t.Fatalf("status after failed opens: session %v", st.SessionID)
	}
	ch.History(id, s.Revision)
	ch.Shutdown()

	// The same session from another cwd.
	other := filepath.Join(filepath.Dir(ws.Cwd), "elsewhere")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	ch2 := start(t, ws, client.Options{Dir: other})
	ch2.WantError("session.open", map[string]string{"session_id": id}, protocol.CodeCwdMismatch)
	ch2.Shutdown()

	// A malformed complete line appended.
	f, err := os.OpenFile(clienttest.SessionFile(ws.Home, id), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("{not json\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ch3 := start(t, ws, client.Options{})
	ch3.WantError("session.open", map[string]string{"session_id": id}, protocol.CodeSessionInvalid)
}

// TestSessionBusyAcrossChildren runs two real children on one session:
// the second gets session_busy until the first attaches another session or
// shuts down.
func TestSessionBusyAcrossChildren(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, "")
	a := start(t, ws, client.Options{})
	s := a.Create()
	a.Turn(s.SessionID, "durable please")

	b := start(t, ws, client.Options{})
	b.WantError("session.open", map[string]string{"session_id": s.SessionID}, protocol.CodeSessionBusy)
	// Idle but attached still holds the lease.
	b.WantError("session.open", map[string]string{"session_id": s.SessionID}, protocol.CodeSessionBusy)

	// a attaches another session: the lease is released.
	a.Create()
	if got := b.Open(s.SessionID); !got.Durable {
		t.Fatalf("open after release: %+v", got)
	}
	a.WantError("session.open", map[string]string{"session_id": s.SessionID}, protocol.CodeSessionBusy)

	// b shuts down: a can open it again.
	b.Shutdown()
	if got := a.Open(s.SessionID); !got.Durable {
		t.Fatalf("open after shutdown: %+v", got)
	}
	// and a third child waits for a.
	c := start(t, ws, client.Options{})
	c.WantError("session.open", map[string]string{"session_id": s.SessionID}, protocol.CodeSessionBusy)
	a.Shutdown()
	c.Open(s.SessionID)
}

// TestCrashMidTurn kills a child with SIGKILL in the middle of a long turn,
// at several points, and reopens the session in a new child: the result is
// a complete projection or an honest interrupted one (a diagnostic entry,
// complete=false), never an error.
func TestCrashMidTurn(t *testing.T) {
	t.Parallel()
	var steps []step
	for range 400 {
		steps = append(steps, text("chunk of text 🙂 "), sleepMs(5))
	}
	for _, after := range []int{1, 3, 20} { // events seen before the kill
		t.Run(fmt.Sprintf("after %d events", after), func(t *testing.T) {
			ws := newWorkspace(t, "", response(steps...))
			ch := start(t, ws, client.Options{})
			s := ch.Create()
			runID, _ := ch.StartTurn(s.SessionID, "long one")
			seen := 0
			_, err := ch.C.WaitEvent(clienttest.Guard(t), func(ev client.Event) bool {
				if ev.RunID != runID {
					t.Errorf("event of run %s", ev.RunID)
				}
				seen++
				return seen >= after
			})
			if err != nil {
				t.Fatal(err)
			}
			ch.C.Kill()
			ch.C.Wait()

			ch2 := start(t, ws, client.Options{})
			o := ch2.Open(s.SessionID)
			if !o.Durable {
				t.Fatalf("reopened after crash: %+v", o)
			}
			entries, complete, _ := ch2.History(s.SessionID, o.Revision)
			msgs := messages(entries)
			hasDiag := false
			for _, m := range msgs {
				hasDiag = hasDiag || m.Kind == "diagnostic"
			}
			if len(msgs) == 0 || msgs[0].Kind != "user" || msgs[0].Text != "long one" {
				t.Fatalf("history after crash: %v", kinds(msgs))
			}
			if !complete && !hasDiag {
				t.Fatalf("interrupted projection without a diagnostic: %v", kinds(msgs))
			}
			t.Logf("after the crash: complete %v, %v", complete, kinds(msgs))
			// The session keeps working: a new turn continues it.
			r := ch2.Turn(s.SessionID, "again")
			if r.Finished.Outcome != "completed" && r.Finished.Outcome != "failed" {
				t.Fatalf("turn after crash: %s", r.Events[len(r.Events)-1].Data)
			}
		})
	}
}

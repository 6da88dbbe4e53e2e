package history

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		helperProcess()
		return
	}
	goleak.VerifyTestMain(m)
}

var fixedNow = func() time.Time { return time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC) }

type env struct {
	dir, cwd string
	store    *Store
}

func newEnv(t testing.TB) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{dir: filepath.Join(root, "sessions"), cwd: filepath.Join(root, "work")}
	if err := os.MkdirAll(e.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(e.cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	e.store = NewStore(e.dir, e.cwd, fixedNow)
	return e
}

// header returns a version-2 header of id recorded in the env's cwd.
func (e *env) header(id string) Record {
	return Record{Type: TypeHeader, SessionID: id, Version: SchemaVersion, Cwd: e.store.cwd, Provider: "fixture", Model: "fixture-model", Thinking: "low", CreatedAt: "2026-11-30T08:00:00Z"}
}

func encode(recs ...Record) []byte {
	var b []byte
	for i := range recs {
		b = AppendRecord(b, &recs[i])
	}
	return b
}

func (e *env) write(t testing.TB, id string, data []byte) string {
	t.Helper()
	path := filepath.Join(e.dir, id+".jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// turn returns the records of one completed turn.
func turn(id, run, prompt, reply string) []Record {
	return []Record{
		{Type: TypeInput, SessionID: id, RunID: run, MessageID: "u" + run, Text: prompt},
		{Type: TypeAssistantChunk, SessionID: id, RunID: run, MessageID: "a" + run, Text: reply},
		{Type: TypeAssistant, SessionID: id, RunID: run, MessageID: "a" + run, Text: reply, HasText: true},
		{Type: TypeRunCompleted, SessionID: id, RunID: run, Outcome: "completed"},
	}
}

type page struct {
	SessionID  string  `json:"session_id"`
	Revision   string  `json:"revision"`
	Entries    []entry `json:"entries"`
	NextCursor *string `json:"next_cursor"`
	Complete   bool    `json:"complete"`
}

type entry struct {
	MessageID string `json:"message_id"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	Partial   bool   `json:"partial"`
	Part      int    `json:"part"`
	LastPart  bool   `json:"last_part"`
}

// allPages pages through a from the null cursor, checking the page bounds,
// and returns every entry and the last page's complete flag.
func allPages(t testing.TB, a *Attachment) ([]entry, bool) {
	t.Helper()
	rev := a.Revision()
	var cursor *string
	var out []entry
	for n := 0; ; n++ {
		raw, code := a.Page(rev, cursor)
		if code != "" {
			t.Fatalf("page %d: %s", n, code)
		}
		if len(raw) > protocol.HistoryPageBytes {
			t.Fatalf("page %d is %d bytes", n, len(raw))
		}
		var p page
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("page %d: %v", n, err)
		}
		if len(p.Entries) > protocol.HistoryPageEntries || p.Revision != rev || p.SessionID != a.ID() {
			t.Fatalf("page %d: bad page %d entries rev %q", n, len(p.Entries), p.Revision)
		}
		if p.NextCursor != nil && (p.Complete || len(*p.NextCursor) > protocol.MaxIDBytes || !ValidID(*p.NextCursor)) {
			t.Fatalf("page %d: bad cursor/complete", n)
		}
		out = append(out, p.Entries...)
		if p.NextCursor == nil {
			return out, p.Complete
		}
		cursor = p.NextCursor
	}
}

// joined concatenates the parts of each message, checking part numbering.
func joined(t testing.TB, entries []entry) []entry {
	t.Helper()
	var out []entry
	for _, e := range entries {
		if e.Part > 0 {
			last := &out[len(out)-1]
			if last.MessageID != e.MessageID || last.LastPart || e.Part != last.Part+1 {
				t.Fatalf("part %d of %s out of order", e.Part, e.MessageID)
			}
			last.Text += e.Text
			last.Part, last.LastPart = e.Part, e.LastPart
			continue
		}
		out = append(out, e)
	}
	for _, e := range out {
		if !e.LastPart {
			t.Fatalf("%s has no last part", e.MessageID)
		}
	}
	return out
}

// appendRecord appends r to a as the turn worker does: an input through
// AppendInput (fsynced), anything else through Append.
func appendRecord(a *Attachment, r Record) error {
	var err error
	if r.Type == TypeInput {
		_, err = a.AppendInput(r)
	} else {
		_, err = a.Append(r, false)
	}
	return err
}

package history

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSaveSelection: a selection changed before the file exists goes into
// the header (its mode right after the first record); one changed later is
// a selection record, which the next Open reports as the saved selection
// and mode; an unchanged one records nothing; neither the pages nor the
// replay show it.
func TestSaveSelection(t *testing.T) {
	e := newEnv(t)
	a, code := e.store.Create("s1", Selection{Provider: "openai", Model: "gpt-a", Thinking: "low"})
	if code != "" {
		t.Fatal(code)
	}
	if err := a.SaveSelection(Selection{Provider: "openai", Model: "gpt-b", Thinking: "high"}, "read-only"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AppendInput(Record{Type: TypeInput, RunID: "r1", MessageID: "m1", Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if err := a.SaveSelection(Selection{Provider: "openai", Model: "gpt-b", Thinking: "high"}, "read-only"); err != nil {
		t.Fatal(err)
	}
	a.Close()
	lines := strings.Split(strings.TrimSpace(string(e.read(t, "s1"))), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"model":"gpt-b","thinking":"high"`) ||
		lines[2] != `{"type":"selection","session_id":"s1","provider":"openai","model":"gpt-b","thinking":"high","mode":"read-only"}` {
		t.Fatalf("file:\n%s", strings.Join(lines, "\n"))
	}
	a, info, code := e.store.Open("s1", nil)
	if code != "" {
		t.Fatal(code)
	}
	want := Selection{Provider: "openai", Model: "gpt-b", Thinking: "high"}
	if info.Saved != want || info.SavedMode != "read-only" {
		t.Fatalf("saved %+v mode %q", info.Saved, info.SavedMode)
	}
	pageBefore, _ := a.Page(a.Revision(), nil)
	replayBefore, _ := a.Replay()
	if err := a.SaveSelection(Selection{Provider: "openai", Model: "gpt-c"}, "auto"); err != nil {
		t.Fatal(err)
	}
	if err := a.SaveSelection(Selection{Provider: "openai", Model: "gpt-c"}, "auto"); err != nil {
		t.Fatal(err)
	}
	pageAfter, _ := a.Page(a.Revision(), nil)
	replayAfter, _ := a.Replay()
	if strings.Count(string(e.read(t, "s1")), `"selection"`) != 2 {
		t.Fatalf("file:\n%s", e.read(t, "s1"))
	}
	if !reflect.DeepEqual(replayBefore, replayAfter) || stripRevision(pageBefore) != stripRevision(pageAfter) {
		t.Fatal("a selection record changed the pages or the replay")
	}
	if err := a.SaveSelection(Selection{Provider: "openai"}, "no spaces allowed"); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("bad mode: %v", err)
	}
	a.Close()
	_, info, _ = e.store.Open("s1", nil)
	if info.Saved != (Selection{Provider: "openai", Model: "gpt-c"}) || info.SavedMode != "auto" {
		t.Fatalf("saved %+v mode %q", info.Saved, info.SavedMode)
	}
}

// stripRevision removes the revision from a page (it names the file's
// bytes, which the record changed).
func stripRevision(page []byte) string {
	s := string(page)
	if i := strings.Index(s, `"revision":"`); i >= 0 {
		j := strings.IndexByte(s[i+12:], '"')
		s = s[:i] + s[i+12+j+1:]
	}
	return s
}

func (e *env) read(t *testing.T, id string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.dir, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

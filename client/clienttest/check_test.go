package clienttest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/protocol"
)

// ev builds an event of session s1, run r1 at seq, with data fields beyond
// the IDs.
func ev(seq uint64, name string, data map[string]any) client.Event {
	data["session_id"], data["run_id"] = "s1", "r1"
	b, _ := json.Marshal(data)
	return client.Event{Seq: seq, Name: name, SessionID: "s1", RunID: "r1", Data: b}
}

func persisted(seq uint64) client.Event {
	return ev(seq, protocol.EventInputPersisted, map[string]any{"message_id": "u1", "durable": true, "revision": "v1"})
}

func finished(seq uint64, persistence string) client.Event {
	return ev(seq, protocol.EventRunFinished, map[string]any{"outcome": "completed", "persistence": persistence, "revision": "v2", "error_code": nil})
}

func delta(seq uint64, msg string, part int, text string) client.Event {
	return ev(seq, protocol.EventMessageDelta, map[string]any{"message_id": msg, "part": part, "text": text})
}

func reconcile(seq uint64, msg string, part int, text string, last, partial bool) client.Event {
	return ev(seq, protocol.EventMessageReconcile, map[string]any{"message_id": msg, "part": part, "text": text, "last_part": last, "partial": partial})
}

func activity(seq uint64, summary string) client.Event {
	return ev(seq, protocol.EventActivity, map[string]any{"activity_id": "a1", "kind": "tool", "state": "started", "name": "shell", "summary": summary})
}

func TestCheckRun(t *testing.T) {
	admission := &client.Response{Seq: 1}
	other := persisted(2)
	other.RunID = "r2"
	tests := []struct {
		name      string
		evs       []client.Event
		wantErr   string // "" means valid
		wantReply string
	}{
		{"whole", []client.Event{persisted(2), delta(3, "m1", 0, "he"), delta(4, "m1", 1, "llo"),
			reconcile(5, "m1", 0, "hel", false, false), reconcile(6, "m1", 1, "lo", true, false),
			reconcile(7, "m2", 0, "!", true, false), finished(8, "durable")}, "", "hello!"},
		{"not started", []client.Event{finished(2, "not_started")}, "", ""},
		{"no events", nil, "no events", ""},
		{"other run", []client.Event{other, finished(3, "durable")}, "run", ""},
		{"before admission", []client.Event{persisted(1), finished(3, "durable")}, "precedes", ""},
		{"persisted late", []client.Event{activity(2, "x"), persisted(3), finished(4, "durable")}, "input.persisted at 1", ""},
		{"no persisted but durable", []client.Event{finished(2, "durable")}, "persistence durable", ""},
		{"finished not last", []client.Event{persisted(2), finished(3, "durable"), activity(4, "x")}, "run.finished at 1", ""},
		{"no finished", []client.Event{persisted(2), activity(3, "x")}, "last event", ""},
		{"delta part back", []client.Event{persisted(2), delta(3, "m1", 1, "a"), delta(4, "m1", 1, "b"), finished(5, "durable")}, "delta part", ""},
		{"delta too long", []client.Event{persisted(2), delta(3, "m1", 0, strings.Repeat("x", protocol.LiveChunkBytes+1)), finished(4, "durable")}, "bytes", ""},
		{"reconcile gap", []client.Event{persisted(2), reconcile(3, "m1", 1, "a", true, false), finished(4, "durable")}, "part 1, want 0", ""},
		{"reconcile after last", []client.Event{persisted(2), reconcile(3, "m1", 0, "a", true, false), reconcile(4, "m1", 1, "b", true, false), finished(5, "durable")}, "want -1", ""},
		{"reconcile interleaved", []client.Event{persisted(2), reconcile(3, "m1", 0, "a", false, false), reconcile(4, "m2", 0, "b", true, false),
			reconcile(5, "m1", 1, "c", true, false), finished(6, "durable")}, "interleaved", ""},
		{"no last part", []client.Event{persisted(2), reconcile(3, "m1", 0, "a", false, false), finished(4, "durable")}, "without last_part", ""},
		{"summary too long", []client.Event{persisted(2), activity(3, strings.Repeat("s", protocol.SummaryBytes+1)), finished(4, "durable")}, "summary", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := checkRun("s1", "r1", admission, tc.evs)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("checkRun = %v; want no error", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("checkRun = %v; want an error containing %q", err, tc.wantErr)
			case tc.wantErr == "" && r.Reply() != tc.wantReply:
				t.Fatalf("Reply() = %q; want %q", r.Reply(), tc.wantReply)
			}
		})
	}
}

func TestCheckPage(t *testing.T) {
	next, bad := "c1", "bad cursor"
	entry := Entry{MessageID: "m1", Kind: "user", Text: "hi", Part: 0, LastPart: true}
	tests := []struct {
		name    string
		size    int
		p       Page
		wantErr bool
	}{
		{"last page", 100, Page{SessionID: "s1", Revision: "v1", Entries: []Entry{entry}, Complete: true}, false},
		{"middle page", 100, Page{SessionID: "s1", Revision: "v1", Entries: []Entry{entry}, NextCursor: &next}, false},
		{"too large", protocol.HistoryPageBytes + 1, Page{SessionID: "s1", Revision: "v1"}, true},
		{"too many entries", 100, Page{SessionID: "s1", Revision: "v1", Entries: make([]Entry, protocol.HistoryPageEntries+1)}, true},
		{"other revision", 100, Page{SessionID: "s1", Revision: "v2"}, true},
		{"bad message id", 100, Page{SessionID: "s1", Revision: "v1", Entries: []Entry{{MessageID: "m 1"}}}, true},
		{"long text", 100, Page{SessionID: "s1", Revision: "v1", Entries: []Entry{{MessageID: "m1", Text: strings.Repeat("x", protocol.HistoryChunkBytes+1)}}}, true},
		{"bad cursor", 100, Page{SessionID: "s1", Revision: "v1", NextCursor: &bad}, true},
		{"complete with cursor", 100, Page{SessionID: "s1", Revision: "v1", NextCursor: &next, Complete: true}, true},
	}
	for _, tc := range tests {
		if err := checkPage("s1", "v1", tc.size, tc.p); (err != nil) != tc.wantErr {
			t.Errorf("%s: checkPage = %v; want error %v", tc.name, err, tc.wantErr)
		}
	}
}

func TestCheckParts(t *testing.T) {
	tests := []struct {
		name    string
		entries []Entry
		wantErr bool
	}{
		{"contiguous", []Entry{{MessageID: "a", Part: 0}, {MessageID: "a", Part: 1, LastPart: true}, {MessageID: "b", Part: 0, LastPart: true}}, false},
		{"same id after last part", []Entry{{MessageID: "a", Part: 0, LastPart: true}, {MessageID: "a", Part: 0, LastPart: true}}, false},
		{"gap", []Entry{{MessageID: "a", Part: 0}, {MessageID: "a", Part: 2}}, true},
		{"not from 0", []Entry{{MessageID: "a", Part: 1}}, true},
		{"new message mid-part", []Entry{{MessageID: "a", Part: 0}, {MessageID: "b", Part: 1}}, true},
	}
	for _, tc := range tests {
		if err := checkParts(tc.entries); (err != nil) != tc.wantErr {
			t.Errorf("%s: checkParts = %v; want error %v", tc.name, err, tc.wantErr)
		}
	}
}

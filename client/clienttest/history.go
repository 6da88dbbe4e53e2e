package clienttest

import (
	"fmt"
	"regexp"
	"unicode/utf8"

	"github.com/magi-code/magi-code/protocol"
)

// IDGrammar is the protocol's grammar of request IDs, cursors, revisions and
// message IDs: 1-64 ASCII bytes of [A-Za-z0-9._-].
var IDGrammar = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// Entry is one history.page entry.
type Entry struct {
	MessageID string `json:"message_id"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	Partial   bool   `json:"partial"`
	Part      int    `json:"part"`
	LastPart  bool   `json:"last_part"`
	Scope     string `json:"scope"` // an approval entry's (activity.output)
}

// Page is a history.page result.
type Page struct {
	SessionID  string  `json:"session_id"`
	Revision   string  `json:"revision"`
	Entries    []Entry `json:"entries"`
	NextCursor *string `json:"next_cursor"`
	Complete   bool    `json:"complete"`
}

// maxPages bounds paging: a snapshot has at most 10,000 parts, and a page
// at least one.
const maxPages = 10_000

// History pages through the whole projection of sessionID at revision,
// starting with "cursor": null, and checks every page (see checkPage) and
// the parts of the joined entries (see checkParts). It returns the entries,
// the last page's complete and the number of pages.
func (ch *Child) History(sessionID, revision string) (entries []Entry, complete bool, pages int) {
	ch.T.Helper()
	return ch.history(map[string]any{"session_id": sessionID, "revision": revision, "cursor": nil})
}

// HistoryNoCursor is History with the cursor field left out of the first
// request, as the protocol allows.
func (ch *Child) HistoryNoCursor(sessionID, revision string) (entries []Entry, complete bool, pages int) {
	ch.T.Helper()
	return ch.history(map[string]any{"session_id": sessionID, "revision": revision})
}

func (ch *Child) history(params map[string]any) (entries []Entry, complete bool, pages int) {
	ch.T.Helper()
	sessionID, revision := params["session_id"].(string), params["revision"].(string)
	for {
		var p Page
		r := ch.Result("history.page", params, &p)
		pages++
		if err := checkPage(sessionID, revision, len(r.Result), p); err != nil {
			ch.T.Fatalf("page %d: %v", pages, err)
		}
		entries = append(entries, p.Entries...)
		if p.NextCursor == nil {
			complete = p.Complete
			break
		}
		if pages >= maxPages {
			ch.T.Fatal("endless paging")
		}
		params["cursor"] = *p.NextCursor
	}
	if err := checkParts(entries); err != nil {
		ch.T.Fatal(err)
	}
	return entries, complete, pages
}

// checkPage checks one page of size result bytes: at most 100 entries and
// 32,768 bytes, the requested session and revision, entry texts valid UTF-8
// of at most 16,384 bytes, message IDs and the next cursor in the ID
// grammar, and complete=true only on the last page.
func checkPage(sessionID, revision string, size int, p Page) error {
	if size > protocol.HistoryPageBytes || len(p.Entries) > protocol.HistoryPageEntries {
		return fmt.Errorf("%d bytes, %d entries", size, len(p.Entries))
	}
	if p.SessionID != sessionID || p.Revision != revision {
		return fmt.Errorf("session %q revision %q; want %q %q", p.SessionID, p.Revision, sessionID, revision)
	}
	for _, e := range p.Entries {
		if !utf8.ValidString(e.Text) || len(e.Text) > protocol.HistoryChunkBytes {
			return fmt.Errorf("entry %s part %d: %d bytes, valid UTF-8 %v", e.MessageID, e.Part, len(e.Text), utf8.ValidString(e.Text))
		}
		if !IDGrammar.MatchString(e.MessageID) {
			return fmt.Errorf("message_id %q outside the ID grammar", e.MessageID)
		}
	}
	if p.NextCursor == nil {
		return nil
	}
	if !IDGrammar.MatchString(*p.NextCursor) {
		return fmt.Errorf("cursor %q outside the ID grammar", *p.NextCursor)
	}
	if p.Complete {
		return fmt.Errorf("complete=true with a next cursor")
	}
	return nil
}

// checkParts checks that each message's parts are contiguous: a message
// starts at part 0 after another message or a last part, and continues
// with the next part of the same message.
func checkParts(entries []Entry) error {
	for i, e := range entries {
		first := i == 0 || entries[i-1].LastPart || entries[i-1].MessageID != e.MessageID
		if first && e.Part != 0 || !first && e.Part != entries[i-1].Part+1 {
			prev := entries[max(i-1, 0)]
			return fmt.Errorf("entry %d: message %s part %d after %s part %d", i, e.MessageID, e.Part, prev.MessageID, prev.Part)
		}
	}
	return nil
}

// Kinds lists the kind of each message of entries (of its part 0).
func Kinds(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		if e.Part == 0 {
			out = append(out, e.Kind)
		}
	}
	return out
}

package session

import (
	"strings"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
	"github.com/magi-code/magi-code/protocol"
)

// Revisions and cursors belong to the child that issued them (every
// ephemeral identifier is scoped to instance_id): a second child that opens
// the same, unchanged session answers stale_revision to the first child's
// revision and cursor, even though it projects the same bytes in the same
// order.
func TestRevisionAndCursorScopedToChild(t *testing.T) {
	t.Parallel()
	// A reply long enough for several history pages, so there is a cursor.
	ws := newWorkspace(t, "", response(text(strings.Repeat("scoped reply ", 8_000))))
	id, _ := durableSession(t, ws, func() *child { return start(t, ws, client.Options{}) })

	firstPage := func(ch *child, revision string) clienttest.Page {
		t.Helper()
		var p clienttest.Page
		ch.Result("history.page", map[string]any{"session_id": id, "revision": revision, "cursor": nil}, &p)
		if p.NextCursor == nil {
			t.Fatalf("one page only (%d entries); the test needs a cursor", len(p.Entries))
		}
		return p
	}
	// Each child opens the session as its first attachment, so that both
	// do the same work on the same bytes.
	a := start(t, ws, client.Options{})
	ra := a.Open(id).Revision
	pa := firstPage(a, ra)
	a.Shutdown()

	b := start(t, ws, client.Options{})
	rb := b.Open(id).Revision
	if rb == ra {
		t.Errorf("the second child issued the first child's revision %q", ra)
	}
	b.WantError("history.page", map[string]any{"session_id": id, "revision": ra, "cursor": nil}, protocol.CodeStaleRevision)
	b.WantError("history.page", map[string]any{"session_id": id, "revision": rb, "cursor": *pa.NextCursor}, protocol.CodeStaleRevision)
	// Its own revision and cursor work.
	pb := firstPage(b, rb)
	b.Result("history.page", map[string]any{"session_id": id, "revision": rb, "cursor": *pb.NextCursor}, nil)
	b.Shutdown()
}

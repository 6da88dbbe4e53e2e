package session

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/magi-code/magi-code/client"
	"github.com/magi-code/magi-code/client/clienttest"
)

// TestTornLastLine truncates a durable session's last line at every byte
// offset (a crash mid-append) and opens each copy: never an error, and an
// honest interrupted projection (diagnostic, complete=false) whenever the
// run's completion is torn away. A later turn trims the torn line, so the
// session stays readable in a new child.
func TestTornLastLine(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, "")
	id, _ := durableSession(t, ws, func() *child { return start(t, ws, client.Options{}) })
	data, err := os.ReadFile(clienttest.SessionFile(ws.Home, id))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatal("session file does not end in LF")
	}
	lastStart := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	if len(id) < 6 {
		t.Fatalf("session ID %q too short to rename", id)
	}
	ch := start(t, ws, client.Options{})
	var torn string
	for k := lastStart; k < len(data); k++ {
		// Same-length ID so offsets stay put; records carry the session ID.
		copyID := id[:len(id)-6] + fmt.Sprintf("%06d", k)
		copyData := bytes.ReplaceAll(data[:k], []byte(id), []byte(copyID))
		if err := os.WriteFile(clienttest.SessionFile(ws.Home, copyID), copyData, 0o600); err != nil {
			t.Fatal(err)
		}
		s := ch.Open(copyID)
		entries, complete, _ := ch.History(copyID, s.Revision)
		msgs := messages(entries)
		diag := false
		for _, m := range msgs {
			diag = diag || m.Kind == "diagnostic"
		}
		if !complete && !diag {
			t.Fatalf("cut at %d of %d: interrupted without a diagnostic: %v", k, len(data), kinds(msgs))
		}
		if k > lastStart && (complete || !diag) {
			t.Fatalf("cut at %d (torn line of %d bytes): complete %v, %v", k, len(data)-lastStart, complete, kinds(msgs))
		}
		if len(msgs) == 0 || msgs[0].Kind != "user" {
			t.Fatalf("cut at %d: %v", k, kinds(msgs))
		}
		if k == (lastStart+len(data))/2 {
			torn = copyID
		}
	}
	// Continue the torn session: the writer trims the torn line first.
	s := ch.Open(torn)
	r := ch.Turn(s.SessionID, "continue")
	if r.Finished.Persistence != "durable" {
		t.Fatalf("turn on a torn session: %s", r.Events[len(r.Events)-1].Data)
	}
	ch.Shutdown()
	ch2 := start(t, ws, client.Options{})
	s = ch2.Open(torn)
	entries, _, _ := ch2.History(torn, s.Revision)
	users := 0
	for _, m := range messages(entries) {
		if m.Kind == "user" {
			users++
		}
	}
	if users != 2 {
		t.Fatalf("history of the continued torn session: %v", kinds(messages(entries)))
	}
}

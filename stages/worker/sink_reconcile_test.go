package worker

import (
	"os"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
)

// TestSinkReconcileParts: a segment's reconciliation is its whole text in
// parts numbered from 0, each within 4,000 bytes, and only the final part
// has last_part (docs/protocol.md, Run events: "part starts at 0, final part
// completes reconciliation"). An empty segment with no deltas is neither
// reconciled nor stored.
func TestSinkReconcileParts(t *testing.T) {
	s, q, path := testSink(t)
	evs := drain(q)
	text := strings.Repeat("0123456789", 1000) // 10,000 bytes: three parts
	s.SegmentStart("m1")
	if err := s.TextDelta("m1", text); err != nil {
		t.Fatal(err)
	}
	if err := s.SegmentEnd("m1", text); err != nil {
		t.Fatal(err)
	}
	s.SegmentStart("m2") // reconciles m1
	if err := s.SegmentEnd("m2", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.flushPending(false); err != nil {
		t.Fatal(err)
	}
	q.Close()
	var joined strings.Builder
	parts := 0
	for _, e := range <-evs {
		if e.Name != protocol.EventMessageReconcile {
			continue
		}
		if e.MessageID != "m1" {
			t.Fatalf("reconcile of the empty segment %s", e.MessageID)
		}
		if e.Part != parts || len(e.Text) > protocol.LiveChunkBytes {
			t.Fatalf("reconcile part %d (%d bytes); want part %d", e.Part, len(e.Text), parts)
		}
		joined.WriteString(e.Text)
		parts++
		if e.LastPart != (joined.Len() == len(text)) {
			t.Fatalf("part %d: last_part %v with %d of %d bytes reconciled", e.Part, e.LastPart, joined.Len(), len(text))
		}
	}
	if parts < 3 || joined.String() != text {
		t.Fatalf("%d reconcile parts holding %d bytes; want the %d-byte text in 3 or more", parts, joined.Len(), len(text))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"m2"`) {
		t.Fatal("the empty segment was stored")
	}
}

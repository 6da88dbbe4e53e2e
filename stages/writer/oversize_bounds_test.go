//go:build unix

package writer

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// TestOversizeBoundsExact: the 65,536-byte output frame bound counts the
// frame itself, LF included, and nothing else: an event frame of exactly
// 65,536 bytes goes out as is, a result of 65,536 bytes (whose frame cannot
// fit) is replaced by content_limit, and frames already pending do not count
// toward the next frame's size.
func TestOversizeBoundsExact(t *testing.T) {
	r, out := newPipe(t)
	w := newWriter(t, out, Options{})
	fill(t, out)
	rd := newReader(t, r)

	// Three responses of about 30 KB wait behind the junk: 90 KB pending.
	big := `"` + strings.Repeat("b", 30000) + `"`
	for _, id := range []string{"b1", "b2", "b3"} {
		if err := w.Respond(&wire.Response{ID: id, Result: []byte(big)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Respond(status("small")); err != nil {
		t.Fatal(err)
	}
	if err := w.Respond(&wire.Response{ID: "huge", Result: []byte(`"` + strings.Repeat("h", protocol.MaxOutputFrameBytes-2) + `"`)}); err != nil {
		t.Fatal(err)
	}
	// The event will be frame 6: size its text so that the frame is 65,536
	// bytes including LF.
	e := delta(0, "")
	e.Text = strings.Repeat("e", protocol.MaxOutputFrameBytes-len(wire.AppendEvent(nil, testInstance, 6, &e)))
	events := make(chan wire.Event, 1)
	events <- e
	close(events)
	result := startRun(t, w, events)

	for _, id := range []string{"b1", "b2", "b3"} {
		if f := rd.next(); f.ID == nil || *f.ID != id || f.Error != nil || string(f.Result) != big {
			t.Fatalf("pending response %s came out as %.100v", id, f)
		}
	}
	if f := rd.next(); f.ID == nil || *f.ID != "small" || f.Error != nil {
		t.Fatalf("small response behind 90 KB of pending frames came out as %+v", f)
	}
	if f := rd.next(); f.ID == nil || *f.ID != "huge" || f.Error == nil || f.Error.Code != string(protocol.CodeContentLimit) {
		t.Fatalf("a 65,536-byte result came out as %.100v; want content_limit", f)
	}
	if f := rd.next(); f.Event != protocol.EventMessageDelta || f.Data.Text != e.Text || f.Seq != 6 {
		t.Fatalf("a 65,536-byte event frame came out as %s seq %d (%d bytes of text); want the delta as is", f.Event, f.Seq, len(f.Data.Text))
	}
	if err := recv(t, result, "Run returning"); err != nil {
		t.Fatal(err)
	}
	if s := w.Stats(); s.Oversize != 1 || s.Frames != 6 {
		t.Fatalf("Oversize = %d, Frames = %d; want 1, 6", s.Oversize, s.Frames)
	}
}

// TestOversizeEventDiagnosticKeepsIDs: an event frame over the bound becomes
// a content_limit diagnostic for the same session and run, so the client
// can tell which run lost content; only IDs that could themselves not fit a
// frame are left out, and the diagnostic is never over the bound.
func TestOversizeEventDiagnosticKeepsIDs(t *testing.T) {
	r, out := newPipe(t)
	w := newWriter(t, out, Options{})
	br := bufio.NewReaderSize(r, 128<<10)
	type diag struct {
		Event string `json:"event"`
		Data  struct {
			Code      string `json:"code"`
			SessionID string `json:"session_id"`
			RunID     string `json:"run_id"`
		} `json:"data"`
	}
	next := func() diag {
		t.Helper()
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		if len(line) > protocol.MaxOutputFrameBytes {
			t.Fatalf("frame of %d bytes > %d", len(line), protocol.MaxOutputFrameBytes)
		}
		var d diag
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	events := make(chan wire.Event, 2)
	result := startRun(t, w, events)

	events <- delta(0, strings.Repeat("e", 70000))
	if d := next(); d.Event != protocol.EventDiagnostic || d.Data.Code != string(protocol.CodeContentLimit) ||
		d.Data.SessionID != "s1" || d.Data.RunID != "run1" {
		t.Fatalf("oversize delta became %+v; want a content_limit diagnostic for session s1, run run1", d)
	}
	huge := delta(1, "x")
	huge.RunID = strings.Repeat("r", 70000)
	events <- huge
	close(events)
	if d := next(); d.Event != protocol.EventDiagnostic || d.Data.Code != string(protocol.CodeContentLimit) || d.Data.RunID != "" {
		t.Fatalf("event with a 70,000-byte run ID became %s code %q run %.20q; want a content_limit diagnostic without IDs", d.Event, d.Data.Code, d.Data.RunID)
	}
	if err := recv(t, result, "Run returning"); err != nil {
		t.Fatal(err)
	}
}

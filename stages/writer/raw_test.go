//go:build unix

package writer

import (
	"bufio"
	"strings"
	"testing"

	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// TestRawFrames: Frame and events that carry Raw write another protocol's
// frames byte for byte, in order with everything else, taking no seq; a
// raw frame over the output bound, or without its LF, is never written.
func TestRawFrames(t *testing.T) {
	r, out := newPipe(t)
	w := newWriter(t, out, Options{})
	events := make(chan wire.Event, 4)
	startRun(t, w, events)

	exact := `{"x":"` + strings.Repeat("a", protocol.MaxOutputFrameBytes-9) + `"}` + "\n"
	if len(exact) != protocol.MaxOutputFrameBytes {
		t.Fatalf("exact frame of %d bytes", len(exact))
	}
	if err := w.Frame([]byte(`{"a":1}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Frame([]byte(exact[:len(exact)-1] + "x\n")); err != nil { // one byte over
		t.Fatal(err)
	}
	if err := w.Frame([]byte(`{"no":"lf"}`)); err != nil {
		t.Fatal(err)
	}
	events <- wire.Event{Raw: []byte(exact)}
	events <- wire.Event{Name: protocol.EventDiagnostic, Raw: []byte(`{"b":2}` + "\n")}
	if err := w.Respond(&wire.Response{ID: "r1", Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReaderSize(r, 1<<17)
	var lines []string
	for len(lines) < 4 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	// The response may come before or after the events (Respond writes at
	// once, events follow Run); the raw frames keep their own order.
	var raw []string
	for _, l := range lines {
		if strings.HasPrefix(l, `{"protocol"`) {
			if !strings.Contains(l, `"seq":1,`) {
				t.Errorf("the response took seq other than 1: raw frames took seqs: %.80s", l)
			}
			continue
		}
		raw = append(raw, l)
	}
	if len(raw) != 3 || raw[0] != `{"a":1}`+"\n" || raw[1] != exact || raw[2] != `{"b":2}`+"\n" {
		t.Errorf("raw frames %.100q", raw)
	}
	if s := w.Stats(); s.Oversize != 2 {
		t.Errorf("Oversize %d, want 2", s.Oversize)
	}
}

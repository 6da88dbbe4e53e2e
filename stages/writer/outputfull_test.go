//go:build unix

package writer

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/stages/wire"
)

// TestOutputFull: the writer reports the output full while a write(2) found
// the pipe full, and not once the pending frames are written.
func TestOutputFull(t *testing.T) {
	r, out := newPipe(t)
	w := newWriter(t, out, Options{})
	if w.OutputFull() {
		t.Fatal("OutputFull before any write")
	}
	resp := &wire.Response{ID: "r1", Result: []byte(`{"state":"idle"}`)}
	if err := w.Respond(resp); err != nil {
		t.Fatal(err)
	}
	if w.OutputFull() {
		t.Fatal("OutputFull after a write that fit")
	}
	// A pipe with one page free: a frame larger than that is written in
	// part, and the rest finds the pipe full.
	fill(t, out)
	if _, err := io.ReadFull(r, make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	big := &wire.Response{ID: "r2", Result: []byte(`"` + strings.Repeat("b", 3*4096) + `"`)}
	if err := w.Respond(big); err != nil {
		t.Fatal(err)
	}
	if pendingFrames(w) != 1 || !w.OutputFull() || w.Stats().Bytes <= uint64(len(`{"state":"idle"}`)) {
		t.Fatalf("pending %d, OutputFull %v, %d bytes written with the pipe full after a partial write; want 1, true, part of the frame",
			pendingFrames(w), w.OutputFull(), w.Stats().Bytes)
	}
	startRun(t, w, nil)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		if len(line) > 1 {
			break // the pending response, after the filler
		}
	}
	for deadline := time.Now().Add(10 * time.Second); pendingFrames(w) > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the pending response was never written")
		}
	}
	if w.OutputFull() {
		t.Fatal("OutputFull after the pending frames were written")
	}
}

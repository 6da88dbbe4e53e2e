package worker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/magi-code/magi-code/history"
	"github.com/magi-code/magi-code/protocol"
	"github.com/magi-code/magi-code/stages/wire"
)

// handed is a part handed out of the carry and queued: its text as the
// consumer will read it, and the bytes it must have then.
type handed struct {
	text, want string
}

// A reused slab never overwrites a part the consumer has not taken yet: a
// consumer that counts taken parts sees every queued part as it was handed
// out, however far behind it falls; slabs are reused (few arrays for many
// slabs' worth of text); parts that were dropped instead of queued do not
// hold a slab back.
func TestCarryReusesSlabsOnlyWhenTaken(t *testing.T) {
	var taken atomic.Uint64
	c := textCarry{taken: &taken}
	rng := rand.New(rand.NewPCG(3, 4))
	var queue []handed // queued, not yet taken, oldest first
	arrays := map[*byte]bool{}
	total := 0
	for i := 0; total < 40*slabBytes; i++ {
		// A delta of 1-3,000 bytes, distinct from the others.
		n := 1 + rng.IntN(3000)
		text := strings.Repeat(string(rune('a'+i%26)), n)
		c.Push(text)
		total += n
		arrays[unsafe.SliceData(c.slab[:1])] = true
		// Hand out parts of at most 4,000 bytes; queue most, drop some.
		for c.Len() > 0 {
			k := min(c.Len(), 1+rng.IntN(4000))
			part := c.Text(k)
			want := strings.Clone(part)
			c.Consume(k)
			if rng.IntN(10) == 0 {
				continue // dropped: never queued, never taken
			}
			c.Enqueued()
			queue = append(queue, handed{part, want})
		}
		// Every part not yet taken is intact; the consumer then takes a
		// random number of them, and lags behind at times.
		for _, h := range queue {
			if h.text != h.want {
				t.Fatalf("a queued part was overwritten before it was taken: %.20q, want %.20q", h.text, h.want)
			}
		}
		k := rng.IntN(len(queue) + 1)
		if rng.IntN(3) == 0 {
			k = max(0, len(queue)-1-rng.IntN(3)) // all but the last one to three
		}
		queue = queue[k:]
		taken.Add(uint64(k))
	}
	for _, h := range queue {
		if h.text != h.want {
			t.Fatalf("a queued part was overwritten before it was taken")
		}
	}
	if slabs := total / slabBytes; len(arrays) > slabs/2 {
		t.Fatalf("%d slab arrays for %d slabs' worth of text: slabs are not reused", len(arrays), slabs)
	}
}

// Without a consumer that counts (taken nil), or while it has taken
// nothing, every new slab is a new array: nothing handed out is ever
// written again.
func TestCarryWithoutTakenNeverReuses(t *testing.T) {
	for _, name := range []string{"no counter", "nothing taken"} {
		t.Run(name, func(t *testing.T) {
			var c textCarry
			if name == "nothing taken" {
				c.taken = new(atomic.Uint64)
			}
			arrays := map[*byte]bool{}
			var parts []handed
			for i := range 20 * slabBytes / 1000 {
				c.Push(strings.Repeat(string(rune('a'+i%26)), 1000))
				arrays[unsafe.SliceData(c.slab[:1])] = true
				part := c.Text(c.Len())
				parts = append(parts, handed{part, strings.Clone(part)})
				c.Consume(c.Len())
				c.Enqueued()
			}
			for _, h := range parts {
				if h.text != h.want {
					t.Fatalf("a handed-out part was overwritten")
				}
			}
			if len(arrays) < 19 {
				t.Fatalf("%d slab arrays for 20 slabs' worth of text: a slab was reused", len(arrays))
			}
		})
	}
}

// EventTaken counts the active run's deltas only: not its other events,
// not a delta of another run, nothing when no run is active.
func TestEventTakenCountsActiveRunDeltas(t *testing.T) {
	p, _ := newTestPool(t)
	delta := func(run string) *wire.Event {
		return &wire.Event{Name: protocol.EventMessageDelta, SessionID: "s", RunID: run, MessageID: "m", Text: "x"}
	}
	p.EventTaken(delta("run-1")) // no active run: nothing to count
	r := &activeRun{id: "run-1"}
	p.run.Store(r)
	p.EventTaken(delta("run-1"))
	p.EventTaken(delta("run-0"))
	p.EventTaken(&wire.Event{Name: protocol.EventMessageReconcile, RunID: "run-1", MessageID: "m", Text: "x"})
	p.EventTaken(&wire.Event{Name: protocol.EventRunFinished, RunID: "run-1"})
	p.EventTaken(delta("run-1"))
	if got := r.taken.Load(); got != 2 {
		t.Fatalf("taken = %d; want the 2 deltas of the active run", got)
	}
}

// At the boundary: a retired slab whose last queued part is not taken yet
// is not reused, however much text follows; once that part is taken, it
// is.
func TestCarryReuseWaitsForTheLastPart(t *testing.T) {
	var taken atomic.Uint64
	c := textCarry{taken: &taken}
	var parts []handed
	fill := func(b byte) { // one 1,000-byte part, handed out and queued
		c.Push(strings.Repeat(string(rune(b)), 1000))
		part := c.Text(c.Len())
		parts = append(parts, handed{part, strings.Clone(part)})
		c.Consume(c.Len())
		c.Enqueued()
	}
	fill('a')
	first := unsafe.SliceData(c.slab[:1])
	for unsafe.SliceData(c.slab[:1]) == first {
		fill('b')
	}
	// The first slab is retired; its last part is the one before the
	// newest. Take everything but it... (and the newest one after it).
	inFirst := len(parts) - 1
	taken.Store(uint64(inFirst - 1))
	second := unsafe.SliceData(c.slab[:1])
	for unsafe.SliceData(c.slab[:1]) == second {
		fill('c')
	}
	if unsafe.SliceData(c.slab[:1]) == first {
		t.Fatalf("the first slab was reused while its last part was not taken")
	}
	if h := parts[inFirst-1]; h.text != h.want {
		t.Fatalf("the first slab's last part was overwritten before it was taken")
	}
	// Now every part of the first slab is taken: the next new slab is it.
	taken.Store(uint64(inFirst))
	third := unsafe.SliceData(c.slab[:1])
	for unsafe.SliceData(c.slab[:1]) == third {
		fill('d')
	}
	if unsafe.SliceData(c.slab[:1]) != first {
		t.Fatalf("the first slab was not reused once all its parts were taken")
	}
}

// The whole turn sink, with a consumer that counts what it takes (as the
// writer does) and lags a whole edge behind at times: every delta it takes
// carries the reply's text at its place, although the sink reuses slabs
// (large deltas, so that the 32 queued parts span more than one slab).
func TestSinkReuseNeverOverwritesQueuedDeltas(t *testing.T) {
	p, q := newTestPool(t)
	store := history.NewStore(t.TempDir(), t.TempDir(), time.Now)
	att, code := store.Create("sess-1", history.Selection{Provider: "fixture", Model: "fixture-model"})
	if code != "" {
		t.Fatal(code)
	}
	defer att.Close()
	if _, err := att.AppendInput(history.Record{Type: history.TypeInput, RunID: "run-1", MessageID: "input-1", Text: "go"}); err != nil {
		t.Fatal(err)
	}
	_, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	r := &activeRun{id: "run-1", sessionID: "sess-1", cancel: cancel, approvals: newApprovals(time.Now)}
	p.run.Store(r)
	s := newTurnSink(p, r, att)
	defer s.stopIdle()

	// The reply: numbered 3,900-byte pieces, so that a text from anywhere
	// else in it is told apart.
	var full strings.Builder
	pieces := make([]string, 600)
	for i := range pieces {
		head := fmt.Sprintf("<%06d>", i)
		pieces[i] = head + strings.Repeat(string(rune('a'+i%26)), 3900-len(head))
		full.WriteString(pieces[i])
	}
	reply := full.String()

	wrong := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		off, next := 0, 0
		rng := rand.New(rand.NewPCG(5, 6))
		for e := range q.C() {
			if e.Name != protocol.EventMessageDelta {
				continue
			}
			// Slower than the producer: the edge stays full, and the 32
			// parts queued behind us span more than one slab.
			time.Sleep(time.Duration(20+rng.IntN(80)) * time.Microsecond)
			if e.Part != next {
				off = -1 // a part was dropped: places are unknown from here
			}
			next = e.Part + 1
			if off >= 0 {
				if off+len(e.Text) > len(reply) || e.Text != reply[off:off+len(e.Text)] {
					select {
					case wrong <- fmt.Sprintf("part %d at offset %d: %.12q, want %.12q", e.Part, off, e.Text, reply[off:min(len(reply), off+12)]):
					default:
					}
				}
				off += len(e.Text)
			}
			p.EventTaken(&e)
		}
	}()
	s.SegmentStart("msg-1")
	arrays := map[*byte]bool{}
	for _, piece := range pieces {
		if err := s.TextDelta("msg-1", piece); err != nil {
			t.Fatal(err)
		}
		arrays[unsafe.SliceData(s.carry.slab[:1])] = true
	}
	if err := s.SegmentEnd("msg-1", reply); err != nil {
		t.Fatal(err)
	}
	s.settle()
	q.Close()
	<-done
	select {
	case w := <-wrong:
		t.Fatalf("a delta's text changed before the consumer took it: %s", w)
	default:
	}
	if len(arrays) >= len(reply)/slabBytes {
		t.Logf("%d slab arrays for %d slabs' worth of text: no reuse happened", len(arrays), len(reply)/slabBytes)
	}
}

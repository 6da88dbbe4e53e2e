package writer

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/magi-code/magi-code/protocol"
)

var t0 = time.Unix(1_000_000, 0)

// push appends a frame of the given body (LF added) enqueued at enq.
func push(p *pending, body string, enq time.Time) {
	p.begin()
	p.buf = append(p.buf, body...)
	p.buf = append(p.buf, '\n')
	p.commit(enq)
}

func TestPendingDeadlineExactInstants(t *testing.T) {
	var p pending
	push(&p, "a", t0)
	cases := []struct {
		elapsed time.Duration
		want    bool
	}{
		{0, false},
		{1999 * time.Millisecond, false},
		{2000*time.Millisecond - time.Nanosecond, false},
		{2000 * time.Millisecond, true},
		{5000 * time.Millisecond, true},
	}
	for _, c := range cases {
		if got := p.expired(t0.Add(c.elapsed)); got != c.want {
			t.Errorf("expired(t0+%v) = %v; want %v", c.elapsed, got, c.want)
		}
	}
	if d, ok := p.deadline(); !ok || !d.Equal(t0.Add(protocol.OutputDeadline)) {
		t.Fatalf("deadline() = %v, %v; want t0+2s", d, ok)
	}
}

func TestPendingPartialWritesDoNotPostponeDeadline(t *testing.T) {
	var p pending
	push(&p, "first-frame", t0)                             // 12 bytes: [0,12)
	push(&p, "second", t0.Add(500*time.Millisecond))        // 7 bytes: [12,19)
	push(&p, "third-frame!", t0.Add(1500*time.Millisecond)) // 13 bytes: [19,32)
	steps := []struct {
		n         int
		wantDone  int
		wantCount int
		wantDL    time.Time
	}{
		{0, 0, 3, t0.Add(2000 * time.Millisecond)},
		{11, 0, 3, t0.Add(2000 * time.Millisecond)}, // one byte of the first frame left: still its deadline
		{1, 1, 2, t0.Add(2500 * time.Millisecond)},  // first done: the second's deadline
		{10, 1, 1, t0.Add(3500 * time.Millisecond)}, // second done, offset inside the third
		{10, 1, 0, time.Time{}},
	}
	for i, s := range steps {
		if done := p.advance(s.n); done != s.wantDone {
			t.Fatalf("step %d: advance(%d) = %d; want %d", i, s.n, done, s.wantDone)
		}
		if p.count != s.wantCount {
			t.Fatalf("step %d: count = %d; want %d", i, p.count, s.wantCount)
		}
		d, _ := p.deadline()
		if !d.Equal(s.wantDL) {
			t.Fatalf("step %d: deadline = %v; want %v", i, d, s.wantDL)
		}
	}
	if len(p.buf) != 0 || p.off != 0 {
		t.Fatalf("drained buffer not reset: len=%d off=%d", len(p.buf), p.off)
	}
}

func TestPendingSeqAndFull(t *testing.T) {
	var p pending
	for i := 1; i <= protocol.PendingOutputFrames; i++ {
		if p.full() {
			t.Fatalf("full after %d frames; want room for 32", i-1)
		}
		if s := p.nextSeq(); s != uint64(i) {
			t.Fatalf("nextSeq = %d; want %d", s, i)
		}
		push(&p, "x", t0)
	}
	if !p.full() {
		t.Fatalf("not full after 32 frames")
	}
	p.advance(len("x\n"))
	if p.full() {
		t.Fatalf("still full after one frame was written")
	}
	if s := p.nextSeq(); s != 33 {
		t.Fatalf("seq after a write = %d; want 33 (never reused)", s)
	}
}

func TestPendingCompactionKeepsBytesAndRecords(t *testing.T) {
	var p pending
	var want bytes.Buffer
	written := 0
	// Interleave pushes and partial writes across many compactions and
	// ring wrap-arounds; what comes out must be exactly what went in.
	var out bytes.Buffer
	for i := range 1000 {
		body := strings.Repeat(string(rune('a'+i%26)), 1+i%97)
		if !p.full() {
			push(&p, body, t0.Add(time.Duration(i)*time.Millisecond))
			want.WriteString(body + "\n")
		}
		n := min(len(p.unwritten()), 1+(i*7)%150)
		out.Write(p.unwritten()[:n])
		p.advance(n)
		written += n
		if p.count > 0 && p.ring[p.head].end <= p.off {
			t.Fatalf("oldest record already written")
		}
	}
	out.Write(p.unwritten())
	p.advance(len(p.unwritten()))
	if out.String() != want.String() {
		t.Fatalf("bytes out differ from bytes in (%d vs %d)", out.Len(), want.Len())
	}
	if cap(p.buf) > 64<<10 {
		t.Fatalf("buffer grew to %d bytes for small frames", cap(p.buf))
	}
}

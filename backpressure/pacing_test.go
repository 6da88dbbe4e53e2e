package backpressure

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestPacingNext(t *testing.T) {
	const capacity, maxCarry = 32, 16000
	cases := []struct {
		name    string
		behind  bool
		queued  int
		carried int
		final   bool
		want    Step
	}{
		{"room", false, 0, 100, false, SendNow},
		{"last slot", false, 31, 100, false, SendNow},
		{"full waits", false, 32, 100, false, SendWaiting},
		{"full final waits", false, 32, 100, true, SendWaiting},
		{"full, carry at bound, not behind: waits (never drops before a missed wait)", false, 32, maxCarry, false, SendWaiting},
		{"behind, full: hold", true, 32, 100, false, Hold},
		{"behind, one slot free: hold (resume once per batch)", true, 31, 100, false, Hold},
		{"behind, above half: hold", true, 17, 100, false, Hold},
		{"behind, drained to half: send", true, 16, 100, false, SendNow},
		{"behind, empty: send", true, 0, 100, false, SendNow},
		{"behind, carry at bound: drop oldest", true, 32, maxCarry, false, DropOldest},
		{"behind, carry past bound: drop oldest", true, 20, maxCarry + 1, false, DropOldest},
		{"behind, carry just under bound: hold", true, 32, maxCarry - 1, false, Hold},
		{"behind, final: send (never held past the segment)", true, 32, maxCarry, true, SendNow},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := Pacing{Grace: time.Millisecond, MaxCarry: maxCarry}
			if c.behind {
				p.Missed()
			}
			if got := p.Next(c.queued, capacity, c.carried, c.final); got != c.want {
				t.Fatalf("Next(queued=%d, cap=%d, carried=%d, final=%v) behind=%v = %v; want %v",
					c.queued, capacity, c.carried, c.final, c.behind, got, c.want)
			}
		})
	}
}

// TestPacingResumesAtHalf checks the whole cycle: a missed wait makes the
// reader behind, and it stays behind while the edge drains, until half.
func TestPacingResumesAtHalf(t *testing.T) {
	p := Pacing{Grace: time.Millisecond, MaxCarry: 100}
	if got := p.Next(4, 4, 1, false); got != SendWaiting {
		t.Fatalf("full edge: %v; want send-waiting", got)
	}
	p.Missed()
	for _, queued := range []int{4, 3} {
		if got := p.Next(queued, 4, 1, false); got != Hold || !p.Behind() {
			t.Fatalf("queued %d of 4 after a missed wait: %v (behind=%v); want hold, behind", queued, got, p.Behind())
		}
	}
	if got := p.Next(2, 4, 1, false); got != SendNow || p.Behind() {
		t.Fatalf("queued 2 of 4: %v (behind=%v); want send-now, caught up", got, p.Behind())
	}
	// Caught up: one free slot is enough again.
	if got := p.Next(3, 4, 1, false); got != SendNow {
		t.Fatalf("queued 3 of 4 after catching up: %v; want send-now", got)
	}
}

// TestPacingWaitPolicy runs a SendWaiting step against a real queue: it
// waits exactly Grace on the queue's clock.
func TestPacingWaitPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := Pacing{Grace: 2 * time.Millisecond, MaxCarry: 100}
		q := New[int]("deltas", 1, Drop(), nil)
		defer q.Close()
		q.Offer(t.Context(), 0)
		start := time.Now()
		err := q.OfferWith(context.Background(), 1, p.WaitPolicy())
		if !errors.Is(err, ErrDeadline) {
			t.Fatalf("offer to a full edge = %v; want ErrDeadline", err)
		}
		if waited := time.Since(start); waited != p.Grace {
			t.Fatalf("waited %v; want exactly the grace %v", waited, p.Grace)
		}
	})
}

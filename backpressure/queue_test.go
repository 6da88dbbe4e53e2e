package backpressure

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPolicyExpired(t *testing.T) {
	t0 := time.Unix(1000, 0)
	cases := []struct {
		name    string
		p       Policy
		elapsed time.Duration
		want    bool
	}{
		{"wait at 0", Wait(2000 * time.Millisecond), 0, false},
		{"wait at 1999ms", Wait(2000 * time.Millisecond), 1999 * time.Millisecond, false},
		{"wait at 1999.999999ms", Wait(2000 * time.Millisecond), 2000*time.Millisecond - 1, false},
		{"wait at 2000ms", Wait(2000 * time.Millisecond), 2000 * time.Millisecond, true},
		{"wait at 2001ms", Wait(2000 * time.Millisecond), 2001 * time.Millisecond, true},
		{"drop at 0", Drop(), 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.p.Expired(t0, t0.Add(c.elapsed)); got != c.want {
				t.Fatalf("%v.Expired(t0, t0+%v) = %v; want %v", c.p, c.elapsed, got, c.want)
			}
		})
	}
}

func TestOfferFullQueue(t *testing.T) {
	cases := []struct {
		name string
		p    Policy
		want error
	}{
		{"drop", Drop(), ErrDropped},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := New[int]("edge", 2, c.p, newFakeClock())
			for i := range 2 {
				if err := q.Offer(t.Context(), i); err != nil {
					t.Fatalf("Offer(%d) = %v; want nil", i, err)
				}
			}
			if err := q.Offer(t.Context(), 2); !errors.Is(err, c.want) {
				t.Fatalf("Offer on full = %v; want %v", err, c.want)
			}
			if q.Len() != 2 {
				t.Fatalf("Len = %d; want 2 (the refused value is not queued)", q.Len())
			}
			<-q.C()
			if err := q.Offer(t.Context(), 3); err != nil {
				t.Fatalf("Offer after room = %v; want nil", err)
			}
			q.Close()
			var got []int
			for v := range q.C() {
				got = append(got, v)
			}
			if len(got) != 2 || got[0] != 1 || got[1] != 3 {
				t.Fatalf("drained %v; want [1 3]", got)
			}
		})
	}
}

func TestDropCounts(t *testing.T) {
	q := New[int]("deltas", 1, Drop(), nil)
	defer q.Close()
	q.Offer(t.Context(), 0)
	for i := range 5 {
		if err := q.Offer(t.Context(), i); !errors.Is(err, ErrDropped) {
			t.Fatalf("Offer = %v; want ErrDropped", err)
		}
	}
	if q.Dropped() != 5 {
		t.Fatalf("Dropped = %d; want 5", q.Dropped())
	}
}

// startOffer offers v in a goroutine and returns the channel of its result.
func startOffer(ctx context.Context, q *Queue[int], v int) <-chan error {
	done := make(chan error, 1)
	go func() { done <- q.Offer(ctx, v) }()
	return done
}

func blocked(done <-chan error) bool {
	select {
	case <-done:
		return false
	default:
		return true
	}
}

func TestWaitExpiresAtExactDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := newFakeClock()
		q := New[int]("critical", 1, Wait(2000*time.Millisecond), clock)
		defer q.Close()
		q.Offer(t.Context(), 0)
		done := startOffer(t.Context(), q, 1)
		synctest.Wait()
		clock.Advance(1999 * time.Millisecond)
		synctest.Wait()
		if !blocked(done) {
			t.Fatalf("Offer returned at 1999 ms; want still waiting")
		}
		clock.Advance(time.Millisecond)
		synctest.Wait()
		if err := <-done; !errors.Is(err, ErrDeadline) {
			t.Fatalf("Offer at 2000 ms = %v; want ErrDeadline", err)
		}
		if q.Expired() != 1 || q.Len() != 1 {
			t.Fatalf("Expired=%d Len=%d; want 1, 1", q.Expired(), q.Len())
		}
	})
}

func TestWaitSucceedsWhenRoomAppears(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := newFakeClock()
		q := New[int]("critical", 1, Wait(2000*time.Millisecond), clock)
		defer q.Close()
		q.Offer(t.Context(), 0)
		done := startOffer(t.Context(), q, 1)
		synctest.Wait()
		clock.Advance(1999 * time.Millisecond)
		if v := <-q.C(); v != 0 {
			t.Fatalf("received %d; want 0", v)
		}
		if err := <-done; err != nil {
			t.Fatalf("Offer = %v; want nil once room appears at 1999 ms", err)
		}
		if v := <-q.C(); v != 1 {
			t.Fatalf("received %d; want 1", v)
		}
	})
}

func TestWaitRealClockInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New[int]("critical", 1, Wait(2000*time.Millisecond), System)
		defer q.Close()
		q.Offer(t.Context(), 0)
		start := time.Now()
		err := q.Offer(t.Context(), 1)
		if !errors.Is(err, ErrDeadline) {
			t.Fatalf("Offer = %v; want ErrDeadline", err)
		}
		// Inside the bubble time is virtual and exact.
		if got := time.Since(start); got != 2000*time.Millisecond {
			t.Fatalf("waited %v; want exactly 2s", got)
		}
	})
}

func TestWaitEndsWithContextCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cause := errors.New("run cancelled")
		ctx, cancel := context.WithCancelCause(t.Context())
		q := New[int]("critical", 1, Wait(2000*time.Millisecond), newFakeClock())
		defer q.Close()
		q.Offer(ctx, 0)
		done := startOffer(ctx, q, 1)
		synctest.Wait()
		cancel(cause)
		if err := <-done; !errors.Is(err, cause) {
			t.Fatalf("Offer = %v; want the context's cause", err)
		}
	})
}

func TestMixedPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := newFakeClock()
		critical := Wait(2000 * time.Millisecond)
		q := NewMixed("run-events", 1, func(v int) Policy {
			if v%2 == 0 {
				return Drop()
			}
			return critical
		}, clock)
		defer q.Close()
		q.Offer(t.Context(), 1)
		if err := q.Offer(t.Context(), 2); !errors.Is(err, ErrDropped) {
			t.Fatalf("even value on full = %v; want ErrDropped", err)
		}
		done := startOffer(t.Context(), q, 3)
		synctest.Wait()
		if !blocked(done) {
			t.Fatalf("odd value returned at once; want it to wait")
		}
		clock.Advance(2000 * time.Millisecond)
		if err := <-done; !errors.Is(err, ErrDeadline) {
			t.Fatalf("odd value = %v; want ErrDeadline", err)
		}
		if q.Dropped() != 1 || q.Expired() != 1 {
			t.Fatalf("counters %d/%d; want 1/1", q.Dropped(), q.Expired())
		}
	})
}

func TestZeroPolicyPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatalf("New with zero Policy did not panic")
		}
	}()
	New[int]("bad", 1, Policy{}, nil)
}

func BenchmarkOfferReceive(b *testing.B) {
	q := New[int]("bench", 32, Wait(2*time.Second), nil)
	b.ReportAllocs()
	for b.Loop() {
		q.Offer(context.Background(), 1)
		<-q.C()
	}
	q.Close()
}

type bigEvent struct {
	a, b, c, d, e, f, g, h, i, j string
	n                            int64
}

func BenchmarkOfferMixedStruct(b *testing.B) {
	q := NewMixed("bench", 32, func(v bigEvent) Policy {
		if v.a == "delta" {
			return Drop()
		}
		return Wait(2 * time.Second)
	}, nil)
	v := bigEvent{a: "delta", b: "x", c: "c", d: "d", e: "e", f: "f", g: "g", h: "h", i: "i", j: "j", n: 1}
	b.ReportAllocs()
	for b.Loop() {
		q.Offer(context.Background(), v)
		<-q.C()
	}
	q.Close()
}

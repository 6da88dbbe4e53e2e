package backpressure

import (
	"testing"
	"time"
)

// The names of kinds, policies and pacing steps appear in diagnostics and
// in the writer's logs: each has its own, and an unknown value says what it
// is rather than passing for a known one.
func TestNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{KindDrop.String(), "drop"},
		{KindWait.String(), "wait"},
		{Kind(0).String(), "Kind(0)"},
		{Kind(7).String(), "Kind(7)"},
		{Drop().String(), "drop"},
		{Wait(2000 * time.Millisecond).String(), "wait(2s)"},
		{Wait(1500 * time.Microsecond).String(), "wait(1.5ms)"},
		{Policy{}.String(), "Kind(0)"},
		{SendNow.String(), "send-now"},
		{SendWaiting.String(), "send-waiting"},
		{Hold.String(), "hold"},
		{DropOldest.String(), "drop-oldest"},
		{Step(0).String(), "Step(?)"},
		{Step(9).String(), "Step(?)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q; want %q", c.got, c.want)
		}
	}
}

func TestQueueNameAndCap(t *testing.T) {
	q := New[int]("run-events", 3, Drop(), nil)
	if q.Name() != "run-events" || q.Cap() != 3 || q.Len() != 0 {
		t.Fatalf("Name, Cap, Len = %q, %d, %d; want run-events, 3, 0", q.Name(), q.Cap(), q.Len())
	}
	m := NewMixed("mixed", 2, func(int) Policy { return Drop() }, nil)
	if m.Name() != "mixed" || m.Cap() != 2 {
		t.Fatalf("mixed Name, Cap = %q, %d; want mixed, 2", m.Name(), m.Cap())
	}
}

// Misuse is a programming error, caught at construction rather than turned
// into a queue that never accepts or never waits.
func TestConstructorsRejectMisuse(t *testing.T) {
	for name, f := range map[string]func(){
		"Wait(0)":         func() { Wait(0) },
		"Wait(-1)":        func() { Wait(-time.Nanosecond) },
		"New capacity 0":  func() { New[int]("q", 0, Drop(), nil) },
		"NewMixed cap 0":  func() { NewMixed("q", 0, func(int) Policy { return Drop() }, nil) },
		"NewMixed cap -1": func() { NewMixed("q", -1, func(int) Policy { return Drop() }, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatalf("%s did not panic", name)
				}
			}()
			f()
		})
	}
}

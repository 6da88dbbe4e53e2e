package worker

import (
	"testing"
	"time"
)

// TestNewPoolKeepsGivenOptions: a clock and a diagnostics sink given in
// Options are the ones the pool uses (nil fields get the defaults).
func TestNewPoolKeepsGivenOptions(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	var logged []string
	p := NewPool(Options{Now: func() time.Time { return t0 }, Logf: func(f string, _ ...any) { logged = append(logged, f) }})
	if got := p.opts.Now(); !got.Equal(t0) {
		t.Fatalf("pool clock = %v; want the given one", got)
	}
	p.opts.Logf("x")
	if len(logged) != 1 {
		t.Fatal("the given Logf was not used")
	}
	d := NewPool(Options{})
	if d.opts.Now == nil || d.opts.Logf == nil || d.opts.Output == nil || d.opts.Fail == nil || d.opts.Log == nil {
		t.Fatal("nil options not defaulted")
	}
}

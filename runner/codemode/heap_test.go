package codemode

import (
	"runtime/metrics"
	"testing"
	"time"
)

// Growth is measured from the lowest heap seen, so a program that starts
// while a previous runaway's garbage is still counted gets its own budget,
// not the garbage's size on top of it.
func TestHeapGuardMeasuresFromTheLowestSample(t *testing.T) {
	const mib = 1 << 20
	g := heapGuard{low: 2048 * mib, budget: 64 * mib} // started over 2 GiB of unswept garbage
	for _, s := range []struct {
		heap int64
		over bool
	}{
		{2048*mib + 10*mib, false},
		{20 * mib, false},                      // the collector swept the garbage
		{20*mib + 64*mib, false},               // exactly the budget
		{30 * mib, false},                      // never lower than 20 MiB again
		{20*mib + 64*mib + 1, true},            // one byte over, from the low point
		{20*mib + 64*mib + 1 + 4096*mib, true}, // and stays over
	} {
		if got := g.over(s.heap); got != s.over {
			t.Fatalf("over(%d MiB) = %v; want %v (low %d MiB)", s.heap/mib, got, s.over, g.low/mib)
		}
	}
	if g := (heapGuard{low: 100 * mib, budget: 64 * mib}); g.over(100*mib+64*mib+1) != true {
		t.Fatal("growth from the first sample not counted")
	}
}

// A memory-limit stop gives the runaway's heap back before Run returns: the
// next program starts from the heap the process had, not from the garbage.
func TestMemoryStopLeavesNoGarbageBehind(t *testing.T) {
	const budget = 64 << 20
	tl := New(Options{Timeout: 5 * time.Minute, MaxHeapBytes: budget})
	sample := []metrics.Sample{{Name: heapMetric}}
	for _, code := range []string{
		`let a = []; for (;;) a.push("x".repeat(1e6))`,
		`let s = "x"; for (;;) s += s`,
	} {
		metrics.Read(sample)
		before := sample[0].Value.Uint64()
		if res := run(t, tl, code); res.Summary != "run_code: memory limit" {
			t.Fatalf("%s: %+v; want a memory-limit stop", code, res)
		}
		metrics.Read(sample)
		if after := sample[0].Value.Uint64(); after > before+budget/2 {
			t.Errorf("%s: heap %d MiB after the stop, %d MiB before: the runaway's garbage is still counted",
				code, after>>20, before>>20)
		}
	}
}

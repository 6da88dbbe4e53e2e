//go:build unix

package benchcpu

import (
	"crypto/sha256"
	"flag"
	"testing"
)

// The metric is reported, in CPU nanoseconds per operation: positive for a
// loop that computes, and no more than the process could have spent.
func TestStartReportsCPUPerOp(t *testing.T) {
	// A fixed count keeps the test short (the default is a second per round).
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set("1000x"); err != nil {
		t.Fatal(err)
	}
	defer bt.Value.Set(old)
	var sink [32]byte
	r := testing.Benchmark(func(b *testing.B) {
		defer Start(b)()
		for b.Loop() {
			// About 0.1 s of CPU in all, well above the kernel's accounting
			// granularity (a tick, 1-10 ms).
			for range 100 {
				sink = sha256.Sum256(sink[:])
			}
		}
	})
	got, ok := r.Extra["cpu-ns/op"]
	if !ok || got <= 0 {
		t.Fatalf("cpu-ns/op = %v (reported %v); want a positive figure", got, ok)
	}
	if r.N != 1000 {
		t.Fatalf("the benchmark ran %d iterations; want 1000", r.N)
	}
}

func TestCPUClockAdvances(t *testing.T) {
	start := cpuClock()
	if start < 0 {
		t.Fatal("getrusage failed")
	}
	var sink [32]byte
	for cpuClock() == start {
		sink = sha256.Sum256(sink[:])
	}
	if cpuClock() < start {
		t.Fatal("the process's CPU time went backwards")
	}
}

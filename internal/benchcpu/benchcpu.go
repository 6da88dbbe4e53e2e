// Package benchcpu reports CPU time per operation in Go benchmarks, beside
// the wall-clock ns/op: on a shared machine a benchmark waits for a core, and
// the wall clock counts the waiting. Only tests import it.
package benchcpu

import "testing"

// Start begins measuring the process's CPU time (user plus system, every
// thread: the garbage collector and any goroutine the benchmark drives).
// The returned function reports it as cpu-ns/op; call it after the loop.
func Start(b *testing.B) (stop func()) {
	start := cpuClock()
	return func() {
		if start < 0 || b.N == 0 {
			return
		}
		b.ReportMetric(float64(cpuClock()-start)/float64(b.N), "cpu-ns/op")
	}
}

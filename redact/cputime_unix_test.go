//go:build unix

package redact

import (
	"syscall"
	"testing"
)

// cpuClock reports the process's user+system CPU time in nanoseconds. On
// a loaded machine a benchmark's wall time counts the time other processes
// ran; its CPU time per operation does not.
func cpuClock() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// loop runs f b.N times and reports cpu-ns/op beside ns/op.
func loop(b *testing.B, f func()) {
	b.Helper()
	start := cpuClock()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuClock()-start)/float64(b.N), "cpu-ns/op")
}

//go:build unix

package benchcpu

import "syscall"

// cpuClock is the process's user+system CPU time in nanoseconds, or -1.
func cpuClock() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
